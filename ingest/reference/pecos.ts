/**
 * Medicare Fee-For-Service Public Provider Enrollment (PPEF, data.cms.gov): the enrollment extract
 * (NPI, PECOS_ASCT_CNTL_ID, ENRLMT_ID, PROVIDER_TYPE_CD, PROVIDER_TYPE_DESC, STATE_CD, FIRST_NAME,
 * MDL_NAME, LAST_NAME, ORG_NAME) and the reassignment extract (REASGN_BNFT_ENRLMT_ID,
 * RCV_BNFT_ENRLMT_ID). Headers from PPEF_*_Extract_2025.04.01.metadata.json; the files are
 * ISO-8859-1 (same metadata), decoded as such.
 */
import { PECOS_ENROLLMENT, PECOS_REASSIGNMENT } from '../../schemas/pricing-tables.ts';
import type { CsvInput } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { csvTableSource, parseNpi, str } from './csv-source.ts';

const ENROLLMENT = {
  npi: 'NPI', cntl: 'PECOS_ASCT_CNTL_ID', enrlmt: 'ENRLMT_ID', typeCd: 'PROVIDER_TYPE_CD', typeDesc: 'PROVIDER_TYPE_DESC',
  state: 'STATE_CD', first: 'FIRST_NAME', middle: 'MDL_NAME', last: 'LAST_NAME', org: 'ORG_NAME',
} as const;

/** The `pecos_enrollment` table from PPEF_Enrollment_Extract_*.csv. */
export function pecosEnrollmentTableSource(input: CsvInput): TableSource {
  return csvTableSource<keyof typeof ENROLLMENT>({
    table: PECOS_ENROLLMENT,
    input,
    layout: 'CMS PPEF Enrollment Extract',
    columns: ENROLLMENT,
    required: ['npi', 'enrlmt', 'typeCd'],
    csv: { encoding: 'latin1', member: /enrollment/i },
    map(get, ctx) {
      const npi = parseNpi(get('npi'));
      if (npi == null) { ctx.warn('bad_npi', `NPI=${get('npi')}`); return null; }
      return {
        npi,
        pecos_asct_cntl_id: str(get('cntl')),
        enrlmt_id: str(get('enrlmt')),
        provider_type_code: str(get('typeCd')),
        provider_type_desc: str(get('typeDesc')),
        state: str(get('state')),
        first_name: str(get('first')),
        last_name: str(get('last')),
        org_name: str(get('org')),
      };
    },
  });
}

const REASSIGNMENT = { from: 'REASGN_BNFT_ENRLMT_ID', to: 'RCV_BNFT_ENRLMT_ID' } as const;

/** The `pecos_reassignment` table from PPEF_Reassignment_Extract_*.csv. */
export function pecosReassignmentTableSource(input: CsvInput): TableSource {
  return csvTableSource<keyof typeof REASSIGNMENT>({
    table: PECOS_REASSIGNMENT,
    input,
    layout: 'CMS PPEF Reassignment Extract',
    columns: REASSIGNMENT,
    required: ['from', 'to'],
    csv: { encoding: 'latin1', member: /reassignment/i },
    map(get, ctx) {
      const from = get('from');
      const to = get('to');
      if (!from || !to) { ctx.warn('missing_enrollment_id', `${from || '(blank)'} -> ${to || '(blank)'}`); return null; }
      return { reassigning_enrlmt_id: from, receiving_enrlmt_id: to };
    },
  });
}
