/**
 * The Medicare reference tables of one snapshot, held in memory for synchronous lookups (the PFS
 * file is ~19k rows, ZIP5 ~43k: a few MB, loaded once per snapshot by the reference adapter), so
 * a network-status answer with 100 matches prices every anchor without a query each.
 * Row shapes follow schemas/pricing-tables.ts (mpfs_rvu, gpci, zip_localities, conversion_factors,
 * medicare_params).
 */

/** mpfs_rvu columns the engine reads. */
export interface RvuRecord {
  year: number;
  release: string;
  qpp: boolean;
  hcpcs: string;
  modifier: string;
  status: string;
  work_rvu: number | null;
  nf_pe_rvu: number | null;
  f_pe_rvu: number | null;
  mp_rvu: number | null;
  nf_na: boolean | null;
  f_na: boolean | null;
  pctc: string | null;
  global_days: string | null;
  conversion_factor: number | null;
  opps_nf_pe_rvu: number | null;
  opps_f_pe_rvu: number | null;
  opps_mp_rvu: number | null;
}

export interface GpciRecord {
  year: number;
  mac: string;
  state: string;
  locality: string;
  locality_name: string | null;
  work_gpci: number | null;
  work_gpci_no_floor: number | null;
  pe_gpci: number | null;
  mp_gpci: number | null;
}

export interface ZipLocalityRecord {
  zip5: string;
  state: string;
  carrier: string;
  locality: string;
  rural_indicator: string | null;
  year_quarter: string | null;
}

export interface ConversionFactorRecord {
  year: number;
  kind: string;
  value: number;
  source: string;
}

export interface MedicareParamsRecord {
  year: number;
  part_b_deductible: number;
  coinsurance_pct: number;
  nonpar_pct: number;
  limiting_charge_pct: number;
  source: string;
}

export interface MedicareTableData {
  rvu: RvuRecord[];
  gpci: GpciRecord[];
  zips: ZipLocalityRecord[];
  conversionFactors: ConversionFactorRecord[];
  params: MedicareParamsRecord[];
}

const rvuKey = (year: number, qpp: boolean, code: string, modifier: string): string => `${year}|${qpp ? 'q' : 'n'}|${code}|${modifier}`;

/** Synchronous lookups over one snapshot's Medicare tables. */
export class MedicareTables {
  private readonly rvus = new Map<string, RvuRecord>();
  private readonly gpcis = new Map<string, GpciRecord>();
  private readonly zipMap = new Map<string, ZipLocalityRecord>();
  private readonly cfs = new Map<string, ConversionFactorRecord>();
  private readonly paramMap = new Map<number, MedicareParamsRecord>();
  /** Fee schedule years with RVUs, newest first. */
  readonly rvuYears: number[];

  constructor(data: MedicareTableData) {
    for (const r of data.rvu) this.rvus.set(rvuKey(r.year, r.qpp, r.hcpcs.toUpperCase(), (r.modifier ?? '').toUpperCase()), r);
    for (const g of data.gpci) this.gpcis.set(`${g.year}|${g.mac}|${g.locality}`, g);
    for (const z of data.zips) this.zipMap.set(z.zip5, z);
    for (const c of data.conversionFactors) this.cfs.set(`${c.year}|${c.kind}`, c);
    for (const p of data.params) this.paramMap.set(p.year, p);
    this.rvuYears = [...new Set(data.rvu.map((r) => r.year))].sort((a, b) => b - a);
  }

  /** An empty set (no Medicare data in the snapshot): every lookup misses, answers explain it. */
  static empty(): MedicareTables {
    return new MedicareTables({ rvu: [], gpci: [], zips: [], conversionFactors: [], params: [] });
  }

  get loaded(): boolean {
    return this.rvuYears.length > 0;
  }

  /** The RVU record; the QPP file's row when asked and present, else the non-QPP row (RVUs are identical; only the CF differs). */
  rvu(year: number, code: string, modifier = '', qpp = false): RvuRecord | undefined {
    const c = code.toUpperCase();
    const m = modifier.toUpperCase();
    return (qpp ? this.rvus.get(rvuKey(year, true, c, m)) : undefined) ?? this.rvus.get(rvuKey(year, false, c, m));
  }

  /** Whether the fee schedule lists the code at all (any modifier) in `year`. */
  hasCode(year: number, code: string): boolean {
    return this.rvu(year, code) !== undefined || ['26', 'TC', '53'].some((m) => this.rvu(year, code, m) !== undefined);
  }

  zip(zip5: string): ZipLocalityRecord | undefined {
    return this.zipMap.get(zip5.slice(0, 5));
  }

  gpci(year: number, mac: string, locality: string): GpciRecord | undefined {
    return this.gpcis.get(`${year}|${mac}|${locality}`);
  }

  /** The GPCI year to use for a fee schedule year: the same year, else the newest earlier one. */
  gpciYearFor(year: number, mac: string, locality: string): number | undefined {
    for (let y = year; y >= year - 3; y--) if (this.gpcis.has(`${y}|${mac}|${locality}`)) return y;
    return undefined;
  }

  conversionFactor(year: number, kind: 'mpfs' | 'mpfs_qpp' | 'anesthesia'): ConversionFactorRecord | undefined {
    return this.cfs.get(`${year}|${kind}`);
  }

  /** Part B parameters for `year`, else the newest year on file. */
  params(year: number): MedicareParamsRecord | undefined {
    return this.paramMap.get(year) ?? [...this.paramMap.values()].sort((a, b) => b.year - a.year)[0];
  }
}
