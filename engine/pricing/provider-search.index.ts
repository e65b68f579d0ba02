/**
 * In-memory name index over every provider of a snapshot (issue 4, item 3). Built once per
 * snapshot (1M providers fit: a token vocabulary with postings as typed arrays) so name search
 * never scans the providers table or touches the rates table. Search is synchronous, so the two
 * scratch arrays are shared between calls safely (JavaScript runs one search at a time).
 */
import { haversineKm, type LatLon } from './geo.ts';
import { FUZZY_TOKEN_THRESHOLD, jaroWinkler, nameTokens, normalizeName, tokenSimilarity } from './provider-search.text.ts';

/** One provider as the index needs it; `names[0]` is the display name, the rest are org and other (DBA) names. */
export interface NameEntry {
  npi: number;
  names: string[];
  /** How many of `names` are legal names (display + organization); the rest are other names (DBA, former). */
  legalNames: number;
  city: string | null;
  state: string | null;
  zip5: string | null;
  latitude: number | null;
  longitude: number | null;
}

/** Where the query hints at a place: a trailing city name or a ZIP inside the name. */
export interface PlaceHints {
  city: string | null;
  zip5: string | null;
}

export interface NameHit {
  entry: NameEntry;
  /** Text match quality in [0, 1]. */
  text: number;
  /** The name that matched best, and whether it is an other name (DBA/former). */
  matchedName: string;
  viaOtherName: boolean;
  /** Some query word matched only approximately (typo or prefix). */
  approximate: boolean;
  distanceKm: number | null;
  cityMatched: boolean;
  zipMatched: boolean;
  /** Combined ranking score (text, then distance and place hints). */
  rank: number;
}

export interface NameSearchOptions {
  origin: LatLon | null;
  zip5: string | null;
  limit: number;
}

const MIN_COVERAGE = 0.5;
const PHASE_ONE_KEEP = 2000;

export class NameIndex {
  readonly size: number;
  private readonly entries: NameEntry[];
  private readonly vocab = new Map<string, number>();
  private readonly tokens: string[] = [];
  private readonly postings: number[][] = [];
  private readonly byFirstChar = new Map<string, number[]>();
  private readonly cities = new Set<string>();
  private readonly scratch: Float32Array;
  private readonly total: Float32Array;
  /** Token ids of every name, flattened: entry row -> names [nameStart[row], nameStart[row+1]) -> tokens [tokStart[n], tokStart[n+1]). */
  private readonly nameStart: Int32Array;
  private readonly tokStart: Int32Array;
  private readonly tokIds: Int32Array;

  constructor(entries: NameEntry[]) {
    this.entries = entries;
    this.size = entries.length;
    this.scratch = new Float32Array(entries.length);
    this.total = new Float32Array(entries.length);
    const nameStart: number[] = [0];
    const tokStart: number[] = [0];
    const tokIds: number[] = [];
    // Last row each token was posted for: dedupes postings without a Set per row (hot loop).
    const lastRow: number[] = [];
    for (let row = 0; row < entries.length; row++) {
      const e = entries[row]!;
      for (const n of e.names) {
        const nameFrom = tokIds.length;
        for (const t of nameTokens(n)) {
          let id = this.vocab.get(t);
          if (id === undefined) {
            id = this.tokens.length;
            this.vocab.set(t, id);
            this.tokens.push(t);
            this.postings.push([]);
            lastRow.push(-1);
            const k = t[0] ?? '';
            let list = this.byFirstChar.get(k);
            if (!list) {
              list = [];
              this.byFirstChar.set(k, list);
            }
            list.push(id);
          }
          let dup = false;
          for (let j = nameFrom; j < tokIds.length; j++) if (tokIds[j] === id) dup = true;
          if (!dup) tokIds.push(id);
          if (lastRow[id] !== row) {
            lastRow[id] = row;
            this.postings[id]!.push(row);
          }
        }
        tokStart.push(tokIds.length);
      }
      nameStart.push(tokStart.length - 1);
      if (e.city) this.cities.add(normalizeName(e.city));
    }
    this.nameStart = Int32Array.from(nameStart);
    this.tokStart = Int32Array.from(tokStart);
    this.tokIds = Int32Array.from(tokIds);
  }

  /** The entry of an NPI, or undefined. Binary search: requires entries sorted by NPI (the adapter sorts them). */
  entryFor(npi: number): NameEntry | undefined {
    let lo = 0;
    let hi = this.entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const e = this.entries[mid]!;
      if (e.npi === npi) return e;
      if (e.npi < npi) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Splits a trailing city name or an embedded ZIP off the query ("Acme Clinic Palo Alto 94301"). */
  placeHints(query: string): { rest: string[]; hints: PlaceHints } {
    let toks = nameTokens(query);
    let zip5: string | null = null;
    const zi = toks.findIndex((t) => /^\d{5}$/.test(t));
    if (zi >= 0 && toks.length > 1) {
      zip5 = toks[zi]!;
      toks = toks.filter((_, i) => i !== zi);
    }
    let city: string | null = null;
    for (let n = Math.min(3, toks.length - 1); n >= 1; n--) {
      const cand = toks.slice(toks.length - n).join(' ');
      if (this.cities.has(cand)) {
        city = cand;
        toks = toks.slice(0, toks.length - n);
        break;
      }
    }
    return { rest: toks, hints: { city, zip5 } };
  }

  /** Vocabulary tokens similar to a query token, with their similarity. */
  private similarTokens(q: string): { id: number; sim: number }[] {
    const out: { id: number; sim: number }[] = [];
    const exact = this.vocab.get(q);
    if (exact !== undefined) out.push({ id: exact, sim: 1 });
    // Typos rarely hit the first letter; scanning one first-letter bucket keeps this cheap.
    for (const id of this.byFirstChar.get(q[0] ?? '') ?? []) {
      if (id === exact) continue;
      const sim = tokenSimilarity(q, this.tokens[id]!);
      if (sim > 0) out.push({ id, sim });
    }
    return out;
  }

  private idf(df: number): number {
    return Math.log(1 + this.size / Math.max(1, df));
  }

  /** Ranked matches for a name query. */
  search(query: string, opts: NameSearchOptions): NameHit[] {
    const { rest, hints } = this.placeHints(query);
    const qTokens = rest.length ? rest : nameTokens(query);
    if (!qTokens.length || !this.size) return [];
    const weights: number[] = [];
    const simMaps: Map<number, number>[] = [];
    const touched: number[] = [];
    const inTouched = new Uint8Array(this.size);
    for (const q of qTokens) {
      const sims = this.similarTokens(q);
      simMaps.push(new Map(sims.map((x) => [x.id, x.sim])));
      const best = sims.reduce((b, s) => (s.sim > b.sim || (s.sim === b.sim && this.postings[s.id]!.length > b.df) ? { sim: s.sim, df: this.postings[s.id]!.length } : b), { sim: 0, df: 1 });
      const w = this.idf(best.df);
      weights.push(w);
      const local: number[] = [];
      for (const { id, sim } of sims) {
        for (const row of this.postings[id]!) {
          if (this.scratch[row]! === 0) local.push(row);
          if (sim > this.scratch[row]!) this.scratch[row] = sim;
        }
      }
      for (const row of local) {
        this.total[row] = this.total[row]! + w * this.scratch[row]!;
        this.scratch[row] = 0;
        if (!inTouched[row]) {
          inTouched[row] = 1;
          touched.push(row);
        }
      }
    }
    const wSum = weights.reduce((a, b) => a + b, 0);
    let cands = touched.map((row) => ({ row, cov: this.total[row]! / wSum }));
    for (const row of touched) this.total[row] = 0;
    cands = cands.filter((c) => c.cov >= MIN_COVERAGE * 0.8);
    cands.sort((a, b) => b.cov - a.cov);
    cands = cands.slice(0, PHASE_ONE_KEEP);

    const qNorm = qTokens.join(' ');
    const hits: NameHit[] = [];
    for (const { row } of cands) {
      const e = this.entries[row]!;
      let best = { cov: 0, strong: false, name: e.names[0] ?? '', idx: 0 };
      const first = this.nameStart[row]!;
      for (let k = first; k < this.nameStart[row + 1]!; k++) {
        let cov = 0;
        let strong = false;
        for (let i = 0; i < qTokens.length; i++) {
          let m = 0;
          const sims = simMaps[i]!;
          for (let t = this.tokStart[k]!; t < this.tokStart[k + 1]!; t++) m = Math.max(m, sims.get(this.tokIds[t]!) ?? 0);
          if (m >= FUZZY_TOKEN_THRESHOLD * 0.95) strong = true;
          cov += weights[i]! * m;
        }
        cov /= wSum;
        const name = e.names[k - first] ?? '';
        const better = cov > best.cov + 1e-9 || (Math.abs(cov - best.cov) <= 1e-9 && jaroWinkler(qNorm, normalizeName(name)) > jaroWinkler(qNorm, normalizeName(best.name)));
        if (better) best = { cov, strong, name, idx: k - first };
      }
      if (!best.strong || best.cov < MIN_COVERAGE) continue;
      const whole = jaroWinkler(qNorm, nameTokens(best.name).join(' '));
      const text = Math.round((0.85 * best.cov + 0.15 * whole) * 1000) / 1000;
      const dist = opts.origin && e.latitude !== null && e.longitude !== null
        ? haversineKm(opts.origin, { latitude: e.latitude, longitude: e.longitude }) : null;
      const cityMatched = hints.city !== null && e.city !== null && normalizeName(e.city) === hints.city;
      const wantZip = hints.zip5 ?? opts.zip5;
      const zipMatched = wantZip !== null && e.zip5 === wantZip;
      // Text first; distance and place hints separate equal names (two same-named clinics).
      const rank = text - (dist === null ? 0 : 0.1 * Math.min(1, dist / 100)) + (cityMatched ? 0.05 : 0) + (zipMatched ? 0.05 : 0)
        - (hints.city !== null && !cityMatched ? 0.05 : 0);
      hits.push({ entry: e, text, matchedName: best.name, viaOtherName: best.idx >= e.legalNames, approximate: best.cov < 0.999, distanceKm: dist, cityMatched, zipMatched, rank });
    }
    hits.sort((a, b) => b.rank - a.rank || b.text - a.text || a.entry.npi - b.entry.npi);
    return hits.slice(0, opts.limit);
  }
}
