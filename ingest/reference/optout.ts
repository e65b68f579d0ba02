/**
 * Medicare opt-out affidavits (CMS "Opt Out Affidavits", data.cms.gov). Columns: First Name,
 * Last Name, NPI, Specialty, Optout Effective Date, Optout End Date, First Line Street Address,
 * Second Line Street Address, City Name, State Code, Zip code, Eligible to Order and Refer.
 * Dates MM/DD/YYYY. A row without a valid NPI cannot be joined to anything: dropped with a warning.
 */
import { MEDICARE_OPTOUT } from '../../schemas/pricing-tables.ts';
import type { CsvInput } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { csvTableSource, dateOrWarn, parseNpi, parseYN, str } from './csv-source.ts';

const COLUMNS = {
  first: 'First Name', last: 'Last Name', npi: 'NPI', specialty: 'Specialty',
  effective: 'Optout Effective Date', end: 'Optout End Date',
  line1: 'First Line Street Address', line2: 'Second Line Street Address', city: 'City Name',
  state: 'State Code', zip: 'Zip code', eligible: 'Eligible to Order and Refer',
} as const;
type Key = keyof typeof COLUMNS;

/** The `medicare_optout` table from the CMS Opt Out Affidavits CSV. */
export function optOutTableSource(input: CsvInput): TableSource {
  return csvTableSource<Key>({
    table: MEDICARE_OPTOUT,
    input,
    layout: 'CMS Opt Out Affidavits CSV',
    columns: COLUMNS,
    required: ['npi', 'effective', 'end'],
    map(get, ctx) {
      const npi = parseNpi(get('npi'));
      if (npi == null) { ctx.warn('bad_npi', `NPI=${get('npi')}`); return null; }
      let eligible = parseYN(get('eligible'));
      if (eligible === undefined) { ctx.warn('bad_flag', `Eligible to Order and Refer=${get('eligible')}`); eligible = null; }
      return {
        npi,
        first_name: str(get('first')),
        last_name: str(get('last')),
        specialty: str(get('specialty')),
        optout_effective_date: dateOrWarn(get('effective'), 'Optout Effective Date', ctx),
        optout_end_date: dateOrWarn(get('end'), 'Optout End Date', ctx),
        state: str(get('state')),
        eligible_to_order_and_refer: eligible,
      };
    },
  });
}
