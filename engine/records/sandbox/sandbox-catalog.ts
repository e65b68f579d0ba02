/**
 * Code lists the sandbox draws its synthetic records from: real code systems (ICD-10-CM, RxNorm,
 * CVX, LOINC, CPT, SNOMED CT) with common codes, so the records read like a payer's, but every
 * person, provider and value built from them is fictional. Provider names are the demo pricing
 * snapshot's synthetic clinics.
 */
export const PROVIDERS = [
  'Poppyfield Family Medicine', 'Bayview Medical Associates, Inc.', 'Manzanita Primary Care Medical Group',
  'Golden Gate Imaging Center', 'Mission Radiology Medical Group', 'Sunrise Family Clinic',
] as const;

export const CONDITIONS = [
  { icd10: 'J06.9', display: 'Acute upper respiratory infection, unspecified' },
  { icd10: 'E78.5', display: 'Hyperlipidemia, unspecified' },
  { icd10: 'I10', display: 'Essential (primary) hypertension' },
  { icd10: 'J45.20', display: 'Mild intermittent asthma, uncomplicated' },
  { icd10: 'M54.50', display: 'Low back pain, unspecified' },
  { icd10: 'E11.9', display: 'Type 2 diabetes mellitus without complications' },
  { icd10: 'F41.1', display: 'Generalized anxiety disorder' },
  { icd10: 'K21.9', display: 'Gastro-esophageal reflux disease without esophagitis' },
  { icd10: 'H66.90', display: 'Otitis media, unspecified, unspecified ear' },
  { icd10: 'Z00.00', display: 'Encounter for general adult medical examination without abnormal findings' },
] as const;

export const MEDICATIONS = [
  { rxnorm: '197361', display: 'amlodipine 5 MG Oral Tablet', sig: 'Take 1 tablet by mouth once daily', quantity: 30, unit: 'tablet', refills: 5 },
  { rxnorm: '617312', display: 'atorvastatin 20 MG Oral Tablet', sig: 'Take 1 tablet by mouth at bedtime', quantity: 90, unit: 'tablet', refills: 3 },
  { rxnorm: '860975', display: 'metformin hydrochloride 500 MG Oral Tablet', sig: 'Take 1 tablet by mouth twice daily with meals', quantity: 60, unit: 'tablet', refills: 5 },
  { rxnorm: '745679', display: 'albuterol 0.09 MG/ACTUAT Metered Dose Inhaler', sig: 'Inhale 2 puffs every 4 to 6 hours as needed for wheezing', quantity: 1, unit: 'inhaler', refills: 2 },
  { rxnorm: '308182', display: 'amoxicillin 250 MG Oral Capsule', sig: 'Take 1 capsule by mouth three times daily for 10 days', quantity: 30, unit: 'capsule', refills: 0 },
  { rxnorm: '310965', display: 'ibuprofen 200 MG Oral Tablet', sig: 'Take 1 to 2 tablets by mouth every 6 hours as needed for pain', quantity: 40, unit: 'tablet', refills: 0 },
  { rxnorm: '312938', display: 'sertraline 50 MG Oral Tablet', sig: 'Take 1 tablet by mouth once daily', quantity: 30, unit: 'tablet', refills: 5 },
] as const;

export const ALLERGIES = [
  { snomed: '91936005', display: 'Allergy to penicillin', category: 'medication', criticality: 'high', reaction: 'Hives', severity: 'moderate' },
  { snomed: '91935009', display: 'Allergy to peanut', category: 'food', criticality: 'high', reaction: 'Anaphylaxis', severity: 'severe' },
  { snomed: '300916003', display: 'Latex allergy', category: 'environment', criticality: 'low', reaction: 'Contact dermatitis', severity: 'mild' },
] as const;

export const VACCINES = [
  { cvx: '141', display: 'Influenza, seasonal, injectable' },
  { cvx: '208', display: 'COVID-19, mRNA, LNP-S, PF, 30 mcg/0.3 mL dose' },
  { cvx: '115', display: 'Tdap' },
  { cvx: '08', display: 'Hep B, adolescent or pediatric' },
  { cvx: '03', display: 'MMR' },
  { cvx: '21', display: 'varicella' },
] as const;

export const LABS = [
  { loinc: '2345-7', display: 'Glucose [Mass/volume] in Serum or Plasma', unit: 'mg/dL', low: 70, high: 99 },
  { loinc: '4548-4', display: 'Hemoglobin A1c/Hemoglobin.total in Blood', unit: '%', low: 4, high: 5.6 },
  { loinc: '2093-3', display: 'Cholesterol [Mass/volume] in Serum or Plasma', unit: 'mg/dL', low: 125, high: 200 },
  { loinc: '2085-9', display: 'Cholesterol in HDL [Mass/volume] in Serum or Plasma', unit: 'mg/dL', low: 40, high: 80 },
  { loinc: '718-7', display: 'Hemoglobin [Mass/volume] in Blood', unit: 'g/dL', low: 12, high: 16 },
  { loinc: '6690-2', display: 'Leukocytes [#/volume] in Blood by Automated count', unit: '10*3/uL', low: 4.5, high: 11 },
  { loinc: '2160-0', display: 'Creatinine [Mass/volume] in Serum or Plasma', unit: 'mg/dL', low: 0.6, high: 1.2 },
  { loinc: '3016-3', display: 'Thyrotropin [Units/volume] in Serum or Plasma', unit: 'm[IU]/L', low: 0.4, high: 4 },
] as const;

export const VITALS = [
  { loinc: '85354-9', display: 'Blood pressure panel with all children optional', unit: 'mm[Hg]', low: 0, high: 0 },
  { loinc: '8867-4', display: 'Heart rate', unit: '/min', low: 58, high: 92 },
  { loinc: '29463-7', display: 'Body weight', unit: 'kg', low: 55, high: 95 },
  { loinc: '8310-5', display: 'Body temperature', unit: 'Cel', low: 36.4, high: 37.4 },
] as const;

export const ENCOUNTER_TYPES = [
  { cpt: '99213', display: 'Office or other outpatient visit, established patient, low complexity', classCode: 'AMB', classDisplay: 'ambulatory' },
  { cpt: '99214', display: 'Office or other outpatient visit, established patient, moderate complexity', classCode: 'AMB', classDisplay: 'ambulatory' },
  { cpt: '99395', display: 'Periodic preventive medicine visit, age 18-39', classCode: 'AMB', classDisplay: 'ambulatory' },
  { cpt: '99443', display: 'Telephone evaluation and management, 21-30 minutes', classCode: 'VR', classDisplay: 'virtual' },
] as const;

export const CLAIM_SERVICES = [
  { code: '99213', display: 'Office or other outpatient visit, established patient, low complexity', price: 128.4 },
  { code: '99214', display: 'Office or other outpatient visit, established patient, moderate complexity', price: 182.1 },
  { code: '80053', display: 'Comprehensive metabolic panel', price: 18.5 },
  { code: '85025', display: 'Complete blood count with automated differential', price: 12.9 },
  { code: '93000', display: 'Electrocardiogram, routine, with interpretation and report', price: 24.6 },
  { code: '71046', display: 'Radiologic examination, chest; 2 views', price: 48.2 },
  { code: '90471', display: 'Immunization administration', price: 27.3 },
] as const;
