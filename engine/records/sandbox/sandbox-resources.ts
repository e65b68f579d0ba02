/**
 * Deterministic synthetic FHIR R4 resources for the sandbox members (CARIN Blue Button profiles
 * for Patient, Coverage and ExplanationOfBenefit; US Core for the clinical ones). The same member
 * always gets the same resources (a PRNG seeded by the member id; dates counted back from a fixed
 * day, never from the clock), so tests can count them independently from the bundles.
 */
import type { FhirResource } from '../fhir-resource.ts';
import { SANDBOX_MEMBERS, SANDBOX_PAYER, type SandboxMember } from './sandbox-members.ts';
import { hashSeed, mulberry32 } from '../../core/prng.ts';
import {
  ALLERGIES, CLAIM_SERVICES, CONDITIONS, ENCOUNTER_TYPES, LABS, MEDICATIONS, PROVIDERS, VACCINES, VITALS,
} from './sandbox-catalog.ts';

/** Records end on this day; earlier ones are spaced back from it (never the wall clock). */
const ANCHOR = Date.parse('2026-10-15T00:00:00Z');
const DAY = 86_400_000;

const C4BB = 'http://hl7.org/fhir/us/carin-bb/StructureDefinition';
const USCORE = 'http://hl7.org/fhir/us/core/StructureDefinition';

/** A generator per (member, kind) key; ASCII keys, so hashSeed's UTF-16 units are its characters. */
function prng(seed: string): () => number {
  return mulberry32(hashSeed(seed));
}

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

/** The i-th of n dates spread over `years` before the anchor, newest first for i = 0. */
function dateOf(i: number, n: number, years: number, rnd: () => number): string {
  const span = years * 365;
  const back = Math.floor((i * span) / Math.max(n, 1)) + Math.floor(rnd() * 3);
  return new Date(ANCHOR - back * DAY).toISOString().slice(0, 10);
}

const money = (v: number) => ({ value: Math.round(v * 100) / 100, currency: 'USD' });
const cc = (system: string, code: string, display: string) => ({ coding: [{ system, code, display }], text: display });
const adjudication = (code: string, amount: number) => ({
  category: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/adjudication', code }] }, amount: money(amount),
});

function patient(m: SandboxMember): FhirResource {
  return {
    resourceType: 'Patient', id: m.patientId,
    meta: { profile: [`${C4BB}/C4BB-Patient`] },
    identifier: [{
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MB' }] },
      system: 'https://sandbox.golden-poppy.example/member-id', value: m.memberId,
    }],
    name: [{ family: m.familyName, given: [m.givenName] }],
    gender: m.gender, birthDate: m.birthDate,
    address: [{ city: m.city, state: 'CA', postalCode: m.postalCode, country: 'US' }],
  };
}

function coverageClass(code: 'group' | 'plan', value: string, name: string | null) {
  return {
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/coverage-class', code }] },
    value, ...(name ? { name } : {}),
  };
}

function coverages(m: SandboxMember): FhirResource[] {
  const subscriber = m.subscriberOf ?? m.memberId;
  const base = {
    resourceType: 'Coverage', meta: { profile: [`${C4BB}/C4BB-Coverage`] },
    type: cc('http://terminology.hl7.org/CodeSystem/v3-ActCode', 'HIP', 'health insurance plan policy'),
    subscriberId: subscriber,
    beneficiary: { reference: `Patient/${m.patientId}` },
    relationship: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/subscriber-relationship', code: m.relationship }] },
    payor: [{ reference: `Organization/${SANDBOX_PAYER.organizationId}`, display: SANDBOX_PAYER.name }],
  };
  const current: FhirResource = {
    ...base, id: `cov-${m.memberId}`, status: 'active',
    period: { start: '2025-01-01' },
    class: [coverageClass('group', m.groupNumber, m.employer), coverageClass('plan', m.planId, m.planName)],
  };
  if (m.memberId !== 'GP100001') return [current];
  // An earlier, ended coverage: linked-coverage pricing must pick the active one.
  return [current, {
    ...base, id: `cov-${m.memberId}-2023`, status: 'cancelled',
    period: { start: '2022-01-01', end: '2024-12-31' },
    class: [coverageClass('group', 'CVG-5550103', 'Central Valley Growers Cooperative (synthetic demo)'),
      coverageClass('plan', '95-5550103', 'Golden Poppy PPO 3000 HSA (synthetic demo)')],
  }];
}

function claims(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.claims;
  return Array.from({ length: n }, (_, i) => {
    const day = dateOf(i, n, 6, rnd);
    const lines = 1 + Math.floor(rnd() * 3);
    const prov = pick(rnd, PROVIDERS);
    const dx = pick(rnd, CONDITIONS);
    const items = Array.from({ length: lines }, (_, k) => {
      const s = pick(rnd, CLAIM_SERVICES);
      const submitted = s.price * (1.6 + rnd() * 0.4);
      const allowed = s.price;
      const member = Math.round(allowed * 0.2 * 100) / 100;
      return {
        sequence: k + 1,
        productOrService: cc('http://www.ama-assn.org/go/cpt', s.code, s.display),
        servicedDate: day,
        quantity: { value: 1 },
        adjudication: [adjudication('submitted', submitted), adjudication('eligible', allowed),
          adjudication('benefit', allowed - member), adjudication('memberliability', member)],
      };
    });
    const sum = (code: string) => items.reduce((t, it) => t + (it.adjudication.find((a) => a.category.coding[0]!.code === code)!.amount.value), 0);
    return {
      resourceType: 'ExplanationOfBenefit', id: `eob-${m.memberId}-${String(i + 1).padStart(4, '0')}`,
      meta: { profile: [`${C4BB}/C4BB-ExplanationOfBenefit-Professional-NonClinician`] },
      status: 'active',
      type: cc('http://terminology.hl7.org/CodeSystem/claim-type', 'professional', 'Professional'),
      use: 'claim',
      patient: { reference: `Patient/${m.patientId}` },
      billablePeriod: { start: day, end: day },
      created: `${day}T12:00:00Z`,
      insurer: { reference: `Organization/${SANDBOX_PAYER.organizationId}`, display: SANDBOX_PAYER.name },
      provider: { display: prov },
      outcome: 'complete',
      insurance: [{ focal: true, coverage: { reference: `Coverage/cov-${m.memberId}` } }],
      diagnosis: [{ sequence: 1, diagnosisCodeableConcept: cc('http://hl7.org/fhir/sid/icd-10-cm', dx.icd10, dx.display) }],
      item: items,
      total: [adjudication('submitted', sum('submitted')), adjudication('benefit', sum('benefit')), adjudication('memberliability', sum('memberliability'))],
      payment: { amount: money(sum('benefit')) },
    };
  });
}

function conditions(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.conditions;
  return Array.from({ length: n }, (_, i) => {
    const c = CONDITIONS[(i * 3 + m.memberId.length) % CONDITIONS.length]!;
    const onset = dateOf(i, n, 8, rnd);
    const resolved = rnd() < 0.3;
    return {
      resourceType: 'Condition', id: `cond-${m.memberId}-${i + 1}`,
      meta: { profile: [`${USCORE}/us-core-condition-problems-health-concerns`] },
      clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: resolved ? 'resolved' : 'active' }] },
      verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'confirmed' }] },
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-category', code: 'problem-list-item' }] }],
      code: cc('http://hl7.org/fhir/sid/icd-10-cm', c.icd10, c.display),
      subject: { reference: `Patient/${m.patientId}` },
      onsetDateTime: onset, recordedDate: onset,
      ...(resolved ? { abatementDateTime: new Date(Date.parse(onset) + 90 * DAY).toISOString().slice(0, 10) } : {}),
    };
  });
}

function medications(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.medications;
  return Array.from({ length: n }, (_, i) => {
    const d = pick(rnd, MEDICATIONS);
    return {
      resourceType: 'MedicationRequest', id: `medrx-${m.memberId}-${i + 1}`,
      meta: { profile: [`${USCORE}/us-core-medicationrequest`] },
      status: i < 3 ? 'active' : 'completed', intent: 'order',
      medicationCodeableConcept: cc('http://www.nlm.nih.gov/research/umls/rxnorm', d.rxnorm, d.display),
      subject: { reference: `Patient/${m.patientId}` },
      authoredOn: dateOf(i, n, 5, rnd),
      requester: { display: pick(rnd, PROVIDERS) },
      dosageInstruction: [{ text: d.sig }],
      dispenseRequest: { numberOfRepeatsAllowed: d.refills, quantity: { value: d.quantity, unit: d.unit } },
    };
  });
}

function allergies(m: SandboxMember, rnd: () => number): FhirResource[] {
  return ALLERGIES.slice(0, m.volumes.allergies).map((a, i) => ({
    resourceType: 'AllergyIntolerance', id: `allergy-${m.memberId}-${i + 1}`,
    meta: { profile: [`${USCORE}/us-core-allergyintolerance`] },
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical', code: 'active' }] },
    verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/allergyintolerance-verification', code: 'confirmed' }] },
    type: 'allergy', category: [a.category], criticality: a.criticality,
    code: cc('http://snomed.info/sct', a.snomed, a.display),
    patient: { reference: `Patient/${m.patientId}` },
    recordedDate: dateOf(i, m.volumes.allergies, 6, rnd),
    reaction: [{ manifestation: [{ text: a.reaction }], severity: a.severity }],
  }));
}

function immunizations(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.immunizations;
  return Array.from({ length: n }, (_, i) => {
    const v = VACCINES[i % VACCINES.length]!;
    return {
      resourceType: 'Immunization', id: `imm-${m.memberId}-${i + 1}`,
      meta: { profile: [`${USCORE}/us-core-immunization`] },
      status: 'completed',
      vaccineCode: cc('http://hl7.org/fhir/sid/cvx', v.cvx, v.display),
      patient: { reference: `Patient/${m.patientId}` },
      occurrenceDateTime: dateOf(i, n, 8, rnd),
      primarySource: false,
      lotNumber: `LOT${Math.floor(rnd() * 900000 + 100000)}`,
    };
  });
}

function observation(m: SandboxMember, id: string, category: 'laboratory' | 'vital-signs', day: string, body: Record<string, unknown>): FhirResource {
  return {
    resourceType: 'Observation', id,
    meta: { profile: [`${USCORE}/${category === 'laboratory' ? 'us-core-observation-lab' : 'us-core-vital-signs'}`] },
    status: 'final',
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: category }] }],
    subject: { reference: `Patient/${m.patientId}` },
    effectiveDateTime: `${day}T09:30:00Z`,
    ...body,
  };
}

function labs(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.labs;
  return Array.from({ length: n }, (_, i) => {
    const l = LABS[i % LABS.length]!;
    const value = Math.round((l.low + (l.high - l.low) * (rnd() * 1.4 - 0.2)) * 10) / 10;
    const flag = value > l.high ? 'H' : value < l.low ? 'L' : 'N';
    return observation(m, `lab-${m.memberId}-${String(i + 1).padStart(4, '0')}`, 'laboratory', dateOf(Math.floor(i / 3) * 3, n, 6, rnd), {
      code: cc('http://loinc.org', l.loinc, l.display),
      valueQuantity: { value, unit: l.unit, system: 'http://unitsofmeasure.org', code: l.unit },
      referenceRange: [{ low: { value: l.low, unit: l.unit }, high: { value: l.high, unit: l.unit } }],
      interpretation: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation', code: flag }] }],
    });
  });
}

function vitals(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.vitals;
  return Array.from({ length: n }, (_, i) => {
    const v = VITALS[i % VITALS.length]!;
    const day = dateOf(Math.floor(i / VITALS.length) * VITALS.length, n, 5, rnd);
    const id = `vital-${m.memberId}-${String(i + 1).padStart(4, '0')}`;
    if (v.loinc === '85354-9') {
      const sys = Math.round(108 + rnd() * 30);
      const dia = Math.round(68 + rnd() * 18);
      return observation(m, id, 'vital-signs', day, {
        code: cc('http://loinc.org', v.loinc, v.display),
        component: [
          { code: cc('http://loinc.org', '8480-6', 'Systolic blood pressure'), valueQuantity: { value: sys, unit: 'mm[Hg]', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
          { code: cc('http://loinc.org', '8462-4', 'Diastolic blood pressure'), valueQuantity: { value: dia, unit: 'mm[Hg]', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
        ],
      });
    }
    const value = Math.round((v.low + (v.high - v.low) * rnd()) * 10) / 10;
    return observation(m, id, 'vital-signs', day, {
      code: cc('http://loinc.org', v.loinc, v.display),
      valueQuantity: { value, unit: v.unit, system: 'http://unitsofmeasure.org', code: v.unit },
    });
  });
}

function encounters(m: SandboxMember, rnd: () => number): FhirResource[] {
  const n = m.volumes.encounters;
  return Array.from({ length: n }, (_, i) => {
    const t = pick(rnd, ENCOUNTER_TYPES);
    const day = dateOf(i, n, 6, rnd);
    const reason = pick(rnd, CONDITIONS);
    return {
      resourceType: 'Encounter', id: `enc-${m.memberId}-${String(i + 1).padStart(4, '0')}`,
      meta: { profile: [`${USCORE}/us-core-encounter`] },
      status: 'finished',
      class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: t.classCode, display: t.classDisplay },
      type: [cc('http://www.ama-assn.org/go/cpt', t.cpt, t.display)],
      subject: { reference: `Patient/${m.patientId}` },
      participant: [{ individual: { display: pick(rnd, PROVIDERS) } }],
      period: { start: `${day}T10:00:00Z`, end: `${day}T10:40:00Z` },
      reasonCode: [cc('http://hl7.org/fhir/sid/icd-10-cm', reason.icd10, reason.display)],
      serviceProvider: { display: pick(rnd, PROVIDERS) },
    };
  });
}

const cache = new Map<string, FhirResource[]>();

/** Every resource of a member (Patient first), generated once per process. */
export function memberResources(m: SandboxMember): FhirResource[] {
  let all = cache.get(m.memberId);
  if (!all) {
    // One PRNG per kind, so adding rows to one kind never shifts another's values.
    const r = (kind: string) => prng(`${m.memberId}:${kind}`);
    all = [
      patient(m), ...coverages(m), ...claims(m, r('eob')), ...conditions(m, r('cond')), ...medications(m, r('med')),
      ...allergies(m, r('allergy')), ...immunizations(m, r('imm')), ...labs(m, r('lab')), ...vitals(m, r('vital')),
      ...encounters(m, r('enc')),
    ];
    cache.set(m.memberId, all);
  }
  return all;
}

/** The member whose FHIR Patient.id this is. */
export function memberByPatientId(patientId: string): SandboxMember | undefined {
  return SANDBOX_MEMBERS.find((m) => m.patientId === patientId);
}
