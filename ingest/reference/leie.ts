/**
 * OIG List of Excluded Individuals/Entities, the downloadable UPDATED.csv
 * (https://oig.hhs.gov/exclusions/exclusions_list.asp). Layout: LASTNAME, FIRSTNAME, MIDNAME, BUSNAME,
 * GENERAL, SPECIALTY, UPIN, NPI, DOB, ADDRESS, CITY, STATE, ZIP, EXCLTYPE, EXCLDATE, REINDATE,
 * WAIVERDATE, WVRSTATE; dates YYYYMMDD with 00000000 for "none"; NPI 0000000000 for "none".
 */
import { LEIE } from '../../schemas/pricing-tables.ts';
import type { CsvInput } from '../csv.ts';
import type { TableSource } from '../table-source.ts';
import { csvTableSource, dateOrWarn, parseNpi, str } from './csv-source.ts';

const COLUMNS = {
  last: 'LASTNAME', first: 'FIRSTNAME', mid: 'MIDNAME', bus: 'BUSNAME', general: 'GENERAL', specialty: 'SPECIALTY',
  upin: 'UPIN', npi: 'NPI', dob: 'DOB', address: 'ADDRESS', city: 'CITY', state: 'STATE', zip: 'ZIP',
  exclType: 'EXCLTYPE', exclDate: 'EXCLDATE', reinDate: 'REINDATE', waiverDate: 'WAIVERDATE', waiverState: 'WVRSTATE',
} as const;
type Key = keyof typeof COLUMNS;

/** The `leie` table from an UPDATED.csv (plain, .gz or .zip). Rows naming nobody are dropped with a warning. */
export function leieTableSource(input: CsvInput): TableSource {
  return csvTableSource<Key>({
    table: LEIE,
    input,
    layout: 'OIG LEIE UPDATED.csv',
    columns: COLUMNS,
    required: ['last', 'first', 'bus', 'npi', 'exclType', 'exclDate'],
    map(get, ctx) {
      let npi = parseNpi(get('npi'));
      if (npi === undefined) { ctx.warn('bad_npi', `NPI=${get('npi')}`); npi = null; }
      if (!get('last') && !get('bus')) { ctx.warn('nameless_row', `row with neither LASTNAME nor BUSNAME (NPI ${get('npi')})`); return null; }
      return {
        npi,
        last_name: str(get('last')),
        first_name: str(get('first')),
        middle_name: str(get('mid')),
        business_name: str(get('bus')),
        general: str(get('general')),
        specialty: str(get('specialty')),
        upin: str(get('upin')),
        dob: dateOrWarn(get('dob'), 'DOB', ctx),
        address: str(get('address')),
        city: str(get('city')),
        state: str(get('state')),
        zip: str(get('zip')),
        excl_type: str(get('exclType')),
        excl_date: dateOrWarn(get('exclDate'), 'EXCLDATE', ctx),
        rein_date: dateOrWarn(get('reinDate'), 'REINDATE', ctx),
        waiver_date: dateOrWarn(get('waiverDate'), 'WAIVERDATE', ctx),
        waiver_state: str(get('waiverState')),
      };
    },
  });
}
