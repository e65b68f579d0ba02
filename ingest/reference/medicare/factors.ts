/**
 * Conversion factors and Part B beneficiary parameters. These are published in rule text and
 * fact sheets rather than as data files, so they are kept here as literal rows, each with its
 * citation (the `source` column). The PPRRVU file also carries the CF on every row: the loader
 * test checks the 2026 figure below against the file.
 */

/** conversion_factors rows. */
export const CONVERSION_FACTOR_ROWS: readonly Record<string, unknown>[] = [
  {
    year: 2026, kind: 'mpfs', value: 33.4009,
    source: 'CY 2026 PFS final rule (CMS-1832-F); PPRRVU2026 non-QPP file, conversion factor column 133-140',
  },
  {
    year: 2026, kind: 'mpfs_qpp', value: 33.5675,
    source: 'CY 2026 PFS final rule (CMS-1832-F): conversion factor for qualifying APM participants (PPRRVU2026 QPP file)',
  },
  {
    year: 2026, kind: 'anesthesia', value: 20.4976,
    source: 'CY 2026 PFS final rule (CMS-1832-F): national anesthesia conversion factor (non-QPP)',
  },
  {
    year: 2025, kind: 'mpfs', value: 32.3465,
    source: 'CY 2025 PFS final rule (CMS-1807-F, 89 FR 97710, 2024-12-09): single 2025 conversion factor',
  },
  {
    year: 2025, kind: 'anesthesia', value: 20.3178,
    source: 'ANES2025.csv header "National Anes CF of 20.3178" (CMS, CY 2025 anesthesia conversion factors)',
  },
];

const PARAMS_LAW = 'coinsurance 20% (SSA 1833(a)(1)); non-participating fee schedule 95% (SSA 1848(a)(3)); limiting charge 115% of that (SSA 1848(g)(2)(C))';

/** medicare_params rows. */
export const MEDICARE_PARAMS_ROWS: readonly Record<string, unknown>[] = [
  {
    year: 2026, part_b_deductible: 283, coinsurance_pct: 20, nonpar_pct: 95, limiting_charge_pct: 115,
    source: `CMS fact sheet "2026 Medicare Parts A & B Premiums and Deductibles" (Part B deductible $283); ${PARAMS_LAW}`,
  },
  {
    year: 2025, part_b_deductible: 257, coinsurance_pct: 20, nonpar_pct: 95, limiting_charge_pct: 115,
    source: `CMS fact sheet "2025 Medicare Parts A & B Premiums and Deductibles" (Part B deductible $257); ${PARAMS_LAW}`,
  },
];
