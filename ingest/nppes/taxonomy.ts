/**
 * NUCC Health Care Provider Taxonomy descriptions ("Classification, Specialization" as in the NUCC
 * code set, https://taxonomy.nucc.org, which NPPES uses for Healthcare Provider Taxonomy Code_N).
 * The project has no copy of the NUCC CSV offline, so this is a SMALL map of the common codes a
 * consumer search meets (primary care, common specialties, clinics, hospitals, pharmacies),
 * transcribed from the NUCC code set v25. Codes not here get a null description; pass the official
 * NUCC CSV (nucc_taxonomy_NNN.csv: Code, Grouping, Classification, Specialization, ...) to
 * `loadNuccTaxonomy` for full coverage.
 */
import { CsvReader, columnIndex, type CsvInput } from '../csv.ts';

/** Code -> "Classification" or "Classification, Specialization". */
export const COMMON_TAXONOMIES: Readonly<Record<string, string>> = {
  // Allopathic & Osteopathic Physicians
  '207Q00000X': 'Family Medicine',
  '207R00000X': 'Internal Medicine',
  '207RC0000X': 'Internal Medicine, Cardiovascular Disease',
  '207RE0101X': 'Internal Medicine, Endocrinology, Diabetes & Metabolism',
  '207RG0100X': 'Internal Medicine, Gastroenterology',
  '207RH0003X': 'Internal Medicine, Hematology & Oncology',
  '207RN0300X': 'Internal Medicine, Nephrology',
  '207RP1001X': 'Internal Medicine, Pulmonary Disease',
  '207RX0202X': 'Internal Medicine, Medical Oncology',
  '208D00000X': 'General Practice',
  '208000000X': 'Pediatrics',
  '207V00000X': 'Obstetrics & Gynecology',
  '207X00000X': 'Orthopaedic Surgery',
  '207N00000X': 'Dermatology',
  '207K00000X': 'Allergy & Immunology',
  '207L00000X': 'Anesthesiology',
  '207P00000X': 'Emergency Medicine',
  '207T00000X': 'Neurological Surgery',
  '207U00000X': 'Nuclear Medicine',
  '207W00000X': 'Ophthalmology',
  '207Y00000X': 'Otolaryngology',
  '207ZP0102X': 'Pathology, Anatomic Pathology & Clinical Pathology',
  '2084N0400X': 'Psychiatry & Neurology, Neurology',
  '2084P0800X': 'Psychiatry & Neurology, Psychiatry',
  '2085R0001X': 'Radiology, Radiation Oncology',
  '2085R0202X': 'Radiology, Diagnostic Radiology',
  '208100000X': 'Physical Medicine & Rehabilitation',
  '208200000X': 'Plastic Surgery',
  '208600000X': 'Surgery',
  '208800000X': 'Urology',
  // Physician assistants, nurses and advanced practice nursing
  '363A00000X': 'Physician Assistant',
  '363AM0700X': 'Physician Assistant, Medical',
  '363L00000X': 'Nurse Practitioner',
  '363LF0000X': 'Nurse Practitioner, Family',
  '363LP0200X': 'Nurse Practitioner, Pediatrics',
  '363LP0808X': 'Nurse Practitioner, Psychiatric/Mental Health',
  '363LW0102X': "Nurse Practitioner, Women's Health",
  '367500000X': 'Nurse Anesthetist, Certified Registered',
  '163W00000X': 'Registered Nurse',
  // Other individual practitioners
  '122300000X': 'Dentist',
  '1223G0001X': 'Dentist, General Practice',
  '152W00000X': 'Optometrist',
  '111N00000X': 'Chiropractor',
  '213E00000X': 'Podiatrist',
  '103T00000X': 'Psychologist',
  '1041C0700X': 'Social Worker, Clinical',
  '101YM0800X': 'Counselor, Mental Health',
  '225100000X': 'Physical Therapist',
  '225X00000X': 'Occupational Therapist',
  '235Z00000X': 'Speech-Language Pathologist',
  '231H00000X': 'Audiologist',
  '133V00000X': 'Dietitian, Registered',
  '183500000X': 'Pharmacist',
  '390200000X': 'Student in an Organized Health Care Education/Training Program',
  // Groups, clinics, hospitals, suppliers
  '193200000X': 'Multi-Specialty',
  '193400000X': 'Single Specialty',
  '261Q00000X': 'Clinic/Center',
  '261QA1903X': 'Clinic/Center, Ambulatory Surgical',
  '261QF0400X': 'Clinic/Center, Federally Qualified Health Center (FQHC)',
  '261QM0801X': 'Clinic/Center, Mental Health (Including Community Mental Health Center)',
  '261QP2300X': 'Clinic/Center, Primary Care',
  '261QR0200X': 'Clinic/Center, Radiology',
  '261QR1300X': 'Clinic/Center, Rural Health',
  '261QU0200X': 'Clinic/Center, Urgent Care',
  '282N00000X': 'General Acute Care Hospital',
  '291U00000X': 'Clinical Medical Laboratory',
  '314000000X': 'Skilled Nursing Facility',
  '251E00000X': 'Home Health',
  '332B00000X': 'Durable Medical Equipment & Medical Supplies',
  '333600000X': 'Pharmacy',
  '3336C0003X': 'Pharmacy, Community/Retail Pharmacy',
};

/**
 * Reads the official NUCC taxonomy CSV (Code, Grouping, Classification, Specialization, ...) or the
 * CMS npd merged layout (combined_code, download_Classification, download_Specialization) into a map.
 */
export async function loadNuccTaxonomy(input: CsvInput): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const reader = new CsvReader(input, { header: true, encoding: 'latin1' });
  let idx: { code: number; cls: number; spec: number } | undefined;
  for await (const batch of reader.batches()) {
    if (!idx) {
      const h = reader.header!;
      const a = columnIndex(h, { code: 'Code', cls: 'Classification', spec: 'Specialization' });
      const b = columnIndex(h, { code: 'combined_code', cls: 'download_Classification', spec: 'download_Specialization' });
      idx = a.code >= 0 && a.cls >= 0 ? a : b;
      if (idx.code < 0 || idx.cls < 0) throw new Error('not a NUCC taxonomy CSV: no Code/Classification columns');
    }
    for (const row of batch) {
      const code = (row[idx.code] ?? '').trim();
      const cls = (row[idx.cls] ?? '').trim();
      const spec = idx.spec >= 0 ? (row[idx.spec] ?? '').trim() : '';
      if (code && cls) out.set(code, spec ? `${cls}, ${spec}` : cls);
    }
  }
  return out;
}
