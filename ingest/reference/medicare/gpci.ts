/**
 * GPCI loader: CMS Addendum E (GPCI2026.csv), one row per MAC + locality with the work GPCI with
 * and without the 1.0 floor (the floor was extended only through 2026-01-31 by H.R. 5371 section
 * 6207, per the file's own note), the PE GPCI and the MP GPCI. Title, blank and footnote rows are
 * skipped: a data row starts with a 5-digit MAC number. The year comes from the header
 * ("2026 PW GPCI …"). Locality names lose their footnote stars ("ALASKA*" -> "ALASKA").
 */
import { csvRows } from '../../csv.ts';
import { num } from './lines.ts';

/** Streams the gpci rows of an Addendum E CSV. */
export async function* gpciRows(path: string): AsyncGenerator<Record<string, unknown>> {
  let year: number | null = null;
  let idx: { noFloor: number; floor: number; pe: number; mp: number } | null = null;
  for await (const r of csvRows(path)) {
    const first = (r[0] ?? '').trim();
    if (/^medicare administrative contractor/i.test(first)) {
      const h = r.map((x) => x.trim().toLowerCase());
      year = Number(/(20\d\d)/.exec(h.find((x) => x.includes('pw gpci')) ?? '')?.[1]);
      idx = {
        noFloor: h.findIndex((x) => x.includes('pw gpci') && x.includes('without')),
        floor: h.findIndex((x) => x.includes('pw gpci') && !x.includes('without')),
        pe: h.findIndex((x) => x.includes('pe gpci')),
        mp: h.findIndex((x) => x.includes('mp gpci')),
      };
      if (Object.values(idx).some((i) => i < 0) || !Number.isInteger(year)) throw new Error(`${path}: unexpected GPCI header ${r.join(',')}`);
      continue;
    }
    if (!/^\d{5}$/.test(first)) continue;
    if (!idx || year === null) throw new Error(`${path}: GPCI data before the header row`);
    const floor = num((r[idx.floor] ?? '').trim());
    yield {
      year,
      mac: first,
      state: (r[1] ?? '').trim(),
      locality: (r[2] ?? '').trim().padStart(2, '0'),
      locality_name: (r[3] ?? '').trim().replace(/\*+$/, ''),
      work_gpci: floor,
      // A file without the "without floor" column (years with a permanent floor) uses the one it has.
      work_gpci_no_floor: idx.noFloor === idx.floor ? floor : num((r[idx.noFloor] ?? '').trim()),
      pe_gpci: num((r[idx.pe] ?? '').trim()),
      mp_gpci: num((r[idx.mp] ?? '').trim()),
    };
  }
}
