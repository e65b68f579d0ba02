/**
 * Deterministic generator of a synthetic TiC in-network-rates file (CMS price-transparency-guide
 * schema, in-network-rates), modelled on shared/tools/gen-tic.mjs: same seed and options give the
 * same bytes. Compact JSON like most payer files; written streaming (plain or gzip) so a 1 GB file
 * never sits in memory. Used by the ingest benchmark and the tests. SYNTHETIC DATA: never real.
 *
 * Shape: provider_references (heavy-tailed groups: mostly small, some with thousands of NPIs, 1% as
 * remote `location` references, optionally one group of `bigGroupNpis` NPIs referenced by many
 * rates), then in_network items (CPT/HCPCS), each with 1-150 negotiated_rates of 5-40 prices, 5% of
 * rates with inline provider_groups instead of references.
 *
 * Repetition as real files show it: the real HealthSCOPE file's 211,905 prices use 35 distinct
 * price descriptions (7 service_code lists) and its 91,780 rates 11 distinct provider_references
 * lists (counted 2026-11-22). Here service_code lists come from a pool of 40 and 90% of rates draw
 * their provider_references list from a pool of 2,000 (the rest are fresh random lists), still far
 * more varied than that real file.
 */
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { Writable } from 'node:stream';

export interface GenOptions {
  /** Target uncompressed size in MiB (stops near it). */
  sizeMb?: number;
  /** Alternatively: stop after this many negotiated prices (overrides sizeMb). */
  prices?: number;
  seed?: number;
  /** Share of bytes spent on provider_references (default 0.2). */
  provrefFrac?: number;
  /** Add one provider group with this many NPIs (e.g. 50,000), referenced by ~1% of rates. */
  bigGroupNpis?: number;
  /** Remote references (location) share (default 0.01; 0 for offline tests). */
  remoteFrac?: number;
  /**
   * Where remote references point: `${remoteBase}${8-digit id}.json` (default
   * https://mrf.example-payer.com/provider-references/; the benchmark serves them from 127.0.0.1).
   */
  remoteBase?: string;
  gzip?: boolean;
  gzipLevel?: number;
}

export interface GenStats {
  bytesUncompressed: number;
  providerReferences: number;
  locationRefs: number;
  providerGroups: number;
  npis: number;
  inNetwork: number;
  negotiatedRates: number;
  inlineGroupRates: number;
  negotiatedPrices: number;
}

/** sfc32 seeded through splitmix32 (as gen-tic.mjs). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  const sm = (): number => {
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16); t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15; t = Math.imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) >>> 0;
  };
  let sa = sm(), sb = sm(), sc = sm(), sd = sm();
  const next = (): number => {
    let t = (sa + sb) | 0;
    sa = sb ^ (sb >>> 9);
    sb = (sc + (sc << 3)) | 0;
    sc = (sc << 21) | (sc >>> 11);
    sd = (sd + 1) | 0;
    t = (t + sd) | 0;
    sc = (sc + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

const WORDS = ('office outpatient visit established patient new evaluation management level moderate complexity low high '
  + 'medical decision making minutes injection therapeutic diagnostic x-ray chest views radiologic examination knee '
  + 'arthroplasty contrast magnetic resonance imaging spinal lumbar ultrasound abdominal echocardiography psychotherapy '
  + 'anesthesia cataract removal colonoscopy biopsy lesion excision laboratory panel metabolic blood count physical therapy '
  + 'infusion intravenous drug supply equipment wheelchair oxygen').split(' ');
const POS = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '19', '20', '21', '22', '23', '24', '31', '32', '41', '49', '50', '53', '65', '81', '99'];
const MODS = ['26', 'TC', '59', '25', '50', 'LT', 'RT', 'GT', '95', 'QW', '51', '76', 'XU', 'GP'];
const NETWORKS = ['Choice Plus', 'Options PPO', 'Navigate HMO', 'Core EPO', 'Select Open Access', 'Compass'];
const HCPCS = 'ABCEGHJKLQV';

/** Generates the document into `out` (a path); resolves with counts when the file is closed. */
export async function generateInNetwork(out: string, o: GenOptions = {}): Promise<GenStats> {
  const rnd = prng(o.seed ?? 1);
  const ri = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const pad = (n: number, w: number): string => String(n).padStart(w, '0');
  const phrase = (a: number, b: number): string => {
    const n = ri(a, b);
    let s = pick(WORDS);
    for (let i = 1; i < n; i++) s += ` ${pick(WORDS)}`;
    return s[0]!.toUpperCase() + s.slice(1);
  };
  const npi = (): number => 1000000000 + Math.floor(rnd() * 999999999);
  const ein = (): string => `${ri(10, 99)}-${pad(ri(0, 9999999), 7)}`;
  const target = Math.floor((o.sizeMb ?? 100) * 1024 * 1024);
  const maxPrices = o.prices ?? Infinity;
  const remoteFrac = o.remoteFrac ?? 0.01;
  const remoteBase = o.remoteBase ?? 'https://mrf.example-payer.com/provider-references/';
  const stats: GenStats = { bytesUncompressed: 0, providerReferences: 0, locationRefs: 0, providerGroups: 0, npis: 0, inNetwork: 0, negotiatedRates: 0, inlineGroupRates: 0, negotiatedPrices: 0 };

  const file = createWriteStream(out, { highWaterMark: 1 << 20 });
  const closed = new Promise<void>((resolve, reject) => { file.on('close', resolve); file.on('error', reject); });
  let sink: Writable = file;
  if (o.gzip) {
    const gz = createGzip({ level: o.gzipLevel ?? 6, chunkSize: 1 << 16 });
    gz.pipe(file);
    sink = gz;
  }
  let buf: string[] = [];
  let bufLen = 0;
  const emit = async (s: string): Promise<void> => {
    buf.push(s); bufLen += s.length; stats.bytesUncompressed += s.length; // ASCII only: chars == bytes
    if (bufLen >= 1 << 20) {
      const chunk = buf.join(''); buf = []; bufLen = 0;
      if (!sink.write(chunk)) await new Promise((r) => sink.once('drain', r));
    }
  };
  const group = (n: number): string => {
    stats.npis += n;
    const parts: number[] = new Array<number>(n);
    for (let i = 0; i < n; i++) parts[i] = npi();
    return `{"npi":[${parts.join(',')}],"tin":{"type":"ein","value":"${ein()}"}}`;
  };
  const npiCount = (): number => {
    const u = rnd();
    return u < 0.6 ? ri(1, 10) : u < 0.9 ? ri(11, 100) : u < 0.98 ? ri(101, 1000) : ri(1001, 8000);
  };
  const done = (): boolean => (maxPrices < Infinity ? stats.negotiatedPrices >= maxPrices : stats.bytesUncompressed >= target - 4096);

  await emit('{"reporting_entity_name":"Synthetic Health Plan (generated)","reporting_entity_type":"health insurance issuer"'
    + `,"plan_name":"Synthetic ${pick(NETWORKS)} Plan","plan_id_type":"hios","plan_id":"${pad(ri(10000, 99999), 5)}NY${pad(ri(0, 999), 3)}"`
    + `,"plan_market_type":"group","last_updated_on":"2025-0${ri(1, 9)}-01","version":"1.0.0","provider_references":[`);
  // Prices mode: ~40 bytes of provider_references per price, the proportion gen-tic.mjs produces.
  const provTarget = maxPrices < Infinity ? maxPrices * 40 * ((o.provrefFrac ?? 0.2) / 0.2) : target * (o.provrefFrac ?? 0.2);
  let id = 0;
  if (o.bigGroupNpis) {
    id++;
    await emit(`{"provider_group_id":${id},"network_name":["${pick(NETWORKS)}"],"provider_groups":[${group(o.bigGroupNpis)}]}`);
    stats.providerGroups++; stats.providerReferences++;
  }
  while (stats.bytesUncompressed < provTarget || id === 0) {
    id++;
    let s = `${id > 1 ? ',' : ''}{"provider_group_id":${id}`;
    if (rnd() < remoteFrac) {
      s += `,"location":"${remoteBase}${pad(id, 8)}.json"}`;
      stats.locationRefs++;
    } else {
      const g = rnd() < 0.8 ? 1 : ri(2, 4);
      const gs: string[] = [];
      for (let k = 0; k < g; k++) { gs.push(group(npiCount())); stats.providerGroups++; }
      s += `,"network_name":["${pick(NETWORKS)}"],"provider_groups":[${gs.join(',')}]}`;
    }
    stats.providerReferences++;
    await emit(s);
  }
  const nRefs = id;
  const refList = (): number[] => {
    const nr = rnd() < 0.5 ? ri(1, 5) : ri(6, 20);
    const refs: number[] = [o.bigGroupNpis && rnd() < 0.01 ? 1 : ri(1, nRefs)];
    for (let k = 1; k < nr; k++) refs.push(ri(1, nRefs));
    return refs;
  };
  const refPool = Array.from({ length: 2000 }, refList);
  const posPool = Array.from({ length: 40 }, () => {
    const sc: string[] = [];
    for (let k = ri(1, 12); k > 0; k--) sc.push(pick(POS));
    return `"${sc.join('","')}"`;
  });
  await emit('],"in_network":[');
  let item = 0;
  while (!done() || item === 0) {
    item++;
    const cpt = rnd() < 0.7;
    const code = cpt ? pad(ri(10004, 99499), 5) : HCPCS[ri(0, HCPCS.length - 1)]! + pad(ri(1, 9999), 4);
    await emit(`${item > 1 ? ',' : ''}{"negotiation_arrangement":"ffs","name":${JSON.stringify(phrase(2, 5))},"billing_code_type":"${cpt ? 'CPT' : 'HCPCS'}","billing_code_type_version":"2025","billing_code":"${code}","description":${JSON.stringify(phrase(6, 22))},"negotiated_rates":[`);
    const nRates = Math.floor(Math.exp(rnd() * Math.log(151)));
    const base = Math.exp(Math.log(20) + rnd() * (Math.log(50000) - Math.log(20)));
    for (let r = 0; r < Math.max(1, nRates); r++) {
      let rs = r ? ',{' : '{';
      if (rnd() < 0.05) {
        const g = ri(1, 2);
        const gs: string[] = [];
        for (let k = 0; k < g; k++) gs.push(group(npiCount()));
        rs += `"provider_groups":[${gs.join(',')}]`;
        stats.inlineGroupRates++;
      } else {
        const refs = rnd() < 0.9 ? pick(refPool) : refList();
        rs += `"provider_references":[${refs.join(',')}]`;
      }
      rs += ',"negotiated_prices":[';
      const np = ri(5, 40);
      for (let p = 0; p < np; p++) {
        const u = rnd();
        const type = u < 0.7 ? 'negotiated' : u < 0.82 ? 'fee schedule' : u < 0.9 ? 'derived' : u < 0.95 ? 'percentage' : 'per diem';
        const rate = type === 'percentage' ? Math.round((30 + rnd() * 120) * 100) / 100 : Math.min(50000, Math.max(20, Math.round(base * (0.6 + rnd() * 0.8) * 100) / 100));
        const prof = rnd() < 0.7;
        let ps = `${p ? ',' : ''}{"negotiated_type":"${type}","negotiated_rate":${rate},"expiration_date":"9999-12-31"`;
        if (prof) {
          ps += `,"service_code":[${pick(posPool)}]`;
        }
        ps += `,"billing_class":"${prof ? 'professional' : 'institutional'}"`;
        if (rnd() < 0.3) ps += `,"billing_code_modifier":["${pick(MODS)}"${rnd() < 0.3 ? `,"${pick(MODS)}"` : ''}]`;
        rs += `${ps}}`;
      }
      stats.negotiatedPrices += np;
      stats.negotiatedRates++;
      await emit(`${rs}]}`);
    }
    await emit(']}');
  }
  stats.inNetwork = item;
  await emit(']}\n');
  sink.end(buf.join(''));
  await closed;
  return stats;
}
