/**
 * Medicare Physician & Other Practitioners - by Provider and Service (data.cms.gov, one CSV per data
 * year, e.g. MUP_PHY_R25_P05_V20_D23_Prov_Svc.csv for 2023). Columns read: Rndrng_NPI,
 * Rndrng_Prvdr_Type, Rndrng_Prvdr_State_Abrvtn, HCPCS_Cd, Place_Of_Srvc, Tot_Benes, Tot_Srvcs,
 * Avg_Sbmtd_Chrg, Avg_Mdcr_Alowd_Amt, Avg_Mdcr_Pymt_Amt. HCPCS_Desc is deliberately never read: it
 * carries AMA CPT descriptors, which must not ship (issue 3, item 3).
 */
import { basename } from 'node:path';
import { PUF_PROVIDER_SERVICE } from '../../schemas/pricing-tables.ts';
import { CsvError, type CsvInput } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { csvTableSource, parseNpi, parseNum, str } from './csv-source.ts';

const COLUMNS = {
  npi: 'Rndrng_NPI', type: 'Rndrng_Prvdr_Type', state: 'Rndrng_Prvdr_State_Abrvtn', hcpcs: 'HCPCS_Cd',
  pos: 'Place_Of_Srvc', benes: 'Tot_Benes', srvcs: 'Tot_Srvcs', sbmtd: 'Avg_Sbmtd_Chrg',
  allowed: 'Avg_Mdcr_Alowd_Amt', pymt: 'Avg_Mdcr_Pymt_Amt',
} as const;
type Key = keyof typeof COLUMNS;

/**
 * The data year of a PUF file from its CMS file name: `_D23_` means data year 2023; otherwise a
 * four-digit year in the name. Undefined when neither is there.
 */
export function pufYearFromName(path: string): number | undefined {
  const name = basename(path);
  const d = /(?:^|[_-])D(\d{2})(?:[_.-]|$)/i.exec(name);
  if (d) return 2000 + Number(d[1]);
  const y = /(?:^|\D)(20\d{2})(?:\D|$)/.exec(name);
  return y ? Number(y[1]) : undefined;
}

/** The `puf_provider_service` table. `year` defaults to the one in the file name (else CsvError). */
export function pufTableSource(input: CsvInput, year?: number): TableSource {
  const y = year ?? (typeof input === 'string' ? pufYearFromName(input) : undefined);
  if (y === undefined) throw new CsvError('the PUF data year is not in the file name: pass it (--puf-year)');
  const num = (s: string, col: string, warn: (k: string, e: string) => void): number | null => {
    const n = parseNum(s);
    if (n === undefined) { warn('bad_number', `${col}=${s}`); return null; }
    return n;
  };
  return csvTableSource<Key>({
    table: PUF_PROVIDER_SERVICE,
    input,
    layout: 'CMS Medicare Physician & Other Practitioners - by Provider and Service',
    extraProvenance: { year: y },
    columns: COLUMNS,
    required: ['npi', 'hcpcs', 'pos', 'srvcs', 'allowed'],
    map(get, ctx) {
      const npi = parseNpi(get('npi'));
      if (npi == null) { ctx.warn('bad_npi', `Rndrng_NPI=${get('npi')}`); return null; }
      const hcpcs = get('hcpcs').toUpperCase();
      if (!hcpcs) { ctx.warn('missing_code', `NPI ${npi} without HCPCS_Cd`); return null; }
      const w = ctx.warn.bind(ctx);
      const benes = num(get('benes'), 'Tot_Benes', w);
      return {
        year: y,
        npi,
        hcpcs,
        place_of_service: str(get('pos').toUpperCase()),
        provider_type: str(get('type')),
        state: str(get('state')),
        tot_benes: benes === null ? null : Math.round(benes),
        tot_srvcs: num(get('srvcs'), 'Tot_Srvcs', w),
        avg_submitted_charge: num(get('sbmtd'), 'Avg_Sbmtd_Chrg', w),
        avg_allowed_amount: num(get('allowed'), 'Avg_Mdcr_Alowd_Amt', w),
        avg_payment_amount: num(get('pymt'), 'Avg_Mdcr_Pymt_Amt', w),
      };
    },
  });
}
