/**
 * PPRRVU loader: the national Physician Fee Schedule relative value file, fixed width, laid out per
 * the RVU26B record layout (RVU26B_layout_pdftotext.txt, "DATA RECORD"). Positions used:
 *   HCPCS 1-5, modifier 6-7, status 58, work RVU 60-65, non-facility PE RVU 67-72, NF NA 73-74,
 *   facility PE RVU 76-81, F NA 82-83, MP RVU 85-89, NF total 91-96, F total 97-102, PC/TC 103,
 *   global 104-106, conversion factor 133-140, OPPS NF PE 152-157, OPPS F PE 159-164, OPPS MP 166-171.
 * The descriptor (positions 8-57) is AMA-copyrighted CPT text and is NEVER read or stored; the
 * shared copy has it blanked already, and a real CMS file would still be safe here.
 * Header records (value "HDR" in 1-3) are skipped.
 */
import { basename } from 'node:path';
import { cols, num, textLines } from './lines.ts';

export interface RvuFileOptions {
  path: string;
  /** Fee schedule year; default: the 4-digit year in the file name (PPRRVU2026_…). */
  year?: number;
  /** Release (RVU26A…D); default from the file name's month (Jan A, Apr B, Jul C, Oct D). */
  release?: string;
  /** The QPP (qualifying APM participant) file; default: name contains "QPP" but not "nonQPP". */
  qpp?: boolean;
}

const RELEASE_BY_MONTH: Record<string, string> = { jan: 'A', apr: 'B', jul: 'C', oct: 'D' };

/** Year, release and QPP flag of a PPRRVU file, from its name unless given. */
export function rvuFileFacts(opts: RvuFileOptions): { year: number; release: string; qpp: boolean } {
  const name = basename(opts.path);
  const year = opts.year ?? Number(/(20\d\d)/.exec(name)?.[1]);
  if (!Number.isInteger(year)) throw new Error(`${name}: cannot tell the fee schedule year; pass year`);
  const month = /_(jan|apr|jul|oct)/i.exec(name)?.[1]?.toLowerCase();
  const release = opts.release ?? `RVU${String(year).slice(2)}${(month && RELEASE_BY_MONTH[month]) ?? 'A'}`;
  const qpp = opts.qpp ?? (/qpp/i.test(name) && !/non_?qpp/i.test(name));
  return { year, release, qpp };
}

/** One mpfs_rvu row from one data record, or null for a header/short record. */
export function parseRvuLine(line: string, facts: { year: number; release: string; qpp: boolean }): Record<string, unknown> | null {
  if (line.length < 58 || line.startsWith('HDR')) return null;
  const hcpcs = cols(line, 1, 5);
  if (!hcpcs) return null;
  return {
    year: facts.year,
    release: facts.release,
    qpp: facts.qpp,
    hcpcs,
    modifier: cols(line, 6, 7),
    status: cols(line, 58, 58),
    work_rvu: num(cols(line, 60, 65)),
    nf_pe_rvu: num(cols(line, 67, 72)),
    nf_na: cols(line, 73, 74) === 'NA',
    f_pe_rvu: num(cols(line, 76, 81)),
    f_na: cols(line, 82, 83) === 'NA',
    mp_rvu: num(cols(line, 85, 89)),
    nf_total: num(cols(line, 91, 96)),
    f_total: num(cols(line, 97, 102)),
    pctc: cols(line, 103, 103),
    global_days: cols(line, 104, 106),
    conversion_factor: num(cols(line, 133, 140)),
    opps_nf_pe_rvu: num(cols(line, 152, 157)),
    opps_f_pe_rvu: num(cols(line, 159, 164)),
    opps_mp_rvu: num(cols(line, 166, 171)),
  };
}

/** Streams the mpfs_rvu rows of one PPRRVU file. */
export async function* rvuRows(opts: RvuFileOptions): AsyncGenerator<Record<string, unknown>> {
  const facts = rvuFileFacts(opts);
  for await (const line of textLines(opts.path)) {
    const row = parseRvuLine(line, facts);
    if (row) yield row;
  }
}
