/**
 * The sandbox payer's FHIR R4 Patient Access API (read and search, CARIN Blue Button / US Core
 * resources): searches by `patient`, paged with `_count` and the server's own `_offset`, each page
 * a `searchset` Bundle whose `link[relation=next]` names the next page (FHIR R4 §3.1.1.3.2).
 */
import { memberResources, memberByPatientId } from '../../engine/records/sandbox/sandbox-resources.ts';
import { grantsRead } from './sandbox-payer.ts';

export const SEARCHABLE = new Set(['Coverage', 'ExplanationOfBenefit', 'Condition', 'MedicationRequest', 'AllergyIntolerance', 'Immunization', 'Observation', 'Encounter', 'Patient']);
const MAX_COUNT = 200;

export interface FhirAnswer {
  status: number;
  body: Record<string, unknown>;
}

export function outcome(status: number, code: string, text: string): FhirAnswer {
  return { status, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics: text }] } };
}

/** CapabilityStatement: what the sandbox serves. */
export function capability(fhirBase: string): Record<string, unknown> {
  return {
    resourceType: 'CapabilityStatement', status: 'active', date: '2026-01-01', kind: 'instance', fhirVersion: '4.0.1',
    format: ['json'], implementation: { description: 'carebridge sandbox payer (synthetic demo data)', url: fhirBase },
    rest: [{
      mode: 'server',
      security: { service: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' }] }] },
      resource: [...SEARCHABLE].map((type) => ({ type, interaction: [{ code: 'read' }, { code: 'search-type' }], searchParam: [{ name: 'patient', type: 'reference' }] })),
    }],
  };
}

/** SMART configuration (SMART App Launch 2, §2.1 .well-known/smart-configuration). */
export function smartConfiguration(baseUrl: string): Record<string, unknown> {
  return {
    issuer: `${baseUrl}/sandbox-payer`,
    authorization_endpoint: `${baseUrl}/sandbox-payer/authorize`,
    token_endpoint: `${baseUrl}/sandbox-payer/token`,
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['launch/patient', 'openid', 'fhirUser', 'offline_access', 'patient/*.rs'],
    response_types_supported: ['code'],
    capabilities: ['launch-standalone', 'client-public', 'context-standalone-patient', 'permission-patient', 'permission-v2', 'permission-offline'],
  };
}

/** GET {fhirBase}/Patient/{id} for the token's patient. */
export function readPatient(id: string, grant: { patientId: string; scope: string }): FhirAnswer {
  if (id !== grant.patientId) return outcome(403, 'forbidden', 'The token grants access to one patient only.');
  const m = memberByPatientId(id);
  if (!m) return outcome(404, 'not-found', 'No such Patient.');
  return { status: 200, body: memberResources(m)[0]! };
}

/** GET {fhirBase}/{type}?patient=&_count=&_offset= */
export function search(fhirBase: string, type: string, q: Record<string, string | undefined>, grant: { patientId: string; scope: string }): FhirAnswer {
  if (!SEARCHABLE.has(type)) return outcome(404, 'not-supported', `${type} is not served here.`);
  if (!grantsRead(grant.scope, type)) return outcome(403, 'forbidden', `The token's scope does not cover ${type}.`);
  const patient = (q.patient ?? '').replace(/^Patient\//, '');
  if (!patient) return outcome(400, 'required', 'The patient search parameter is required.');
  if (patient !== grant.patientId) return outcome(403, 'forbidden', 'The token grants access to one patient only.');
  const count = Math.min(Math.max(Number.parseInt(q._count ?? '50', 10) || 50, 1), MAX_COUNT);
  const offset = Math.max(Number.parseInt(q._offset ?? '0', 10) || 0, 0);
  const m = memberByPatientId(patient);
  const all = m ? memberResources(m).filter((r) => r.resourceType === type) : [];
  const page = all.slice(offset, offset + count);
  const url = (o: number) => `${fhirBase}/${type}?patient=${encodeURIComponent(patient)}&_count=${count}&_offset=${o}`;
  return {
    status: 200,
    body: {
      resourceType: 'Bundle', type: 'searchset', total: all.length,
      link: [{ relation: 'self', url: url(offset) }, ...(offset + count < all.length ? [{ relation: 'next', url: url(offset + count) }] : [])],
      entry: page.map((resource) => ({ fullUrl: `${fhirBase}/${type}/${resource.id}`, resource, search: { mode: 'match' } })),
    },
  };
}
