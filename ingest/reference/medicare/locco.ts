/**
 * Locality-county crosswalk loader (25LOCCO.csv, "Counties included in 2025 localities"). The CMS
 * sheet writes MAC numbers and locality numbers without leading zeros (2102, 0): restored to the
 * 5- and 2-digit forms the GPCI and ZIP5 files use (02102, 00), so the three join. The state is
 * printed only on a state's first row: carried down. Stars marking two-carrier localities are
 * dropped from the area name.
 */
import { csvRows } from '../../csv.ts';

/** Streams the locality_counties rows. */
export async function* loccoRows(path: string): AsyncGenerator<Record<string, unknown>> {
  let state = '';
  for await (const r of csvRows(path)) {
    const mac = (r[0] ?? '').trim();
    if (!/^\d{1,5}$/.test(mac)) continue;
    const st = (r[2] ?? '').trim();
    if (st) state = st;
    yield {
      mac: mac.padStart(5, '0'),
      locality: (r[1] ?? '').trim().padStart(2, '0'),
      state,
      fee_schedule_area: (r[3] ?? '').trim().replace(/\*+$/, '').trim() || null,
      counties: (r[4] ?? '').trim() || null,
    };
  }
}
