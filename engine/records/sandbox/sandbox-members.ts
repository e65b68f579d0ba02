/**
 * The embedded sandbox payer's members (issue 36, item 2): fictional people insured by the demo
 * pricing snapshot's payer (data/demo/seed.json: "Golden Poppy Health Plan (synthetic demo)"), so
 * that a linked member's Coverage resolves to a real plan of the demo snapshot in network-status.
 * Every name, id and record here is synthetic. The password is the same for all and is printed on
 * the sandbox sign-in page and in the README: the sandbox stands in for a payer's own login.
 */

/** The sandbox's one password (synthetic members only; shown on its sign-in page). */
export const SANDBOX_PASSWORD = 'sandbox-demo';

export const SANDBOX_PAYER = {
  /** As the demo snapshot's payers registry accepts it (data/demo/seed.json payer). */
  name: 'Golden Poppy Health Plan (synthetic demo)',
  organizationId: 'org-golden-poppy',
  /** NAIC-style payer id, fictional. */
  payerId: 'GPHP-DEMO',
} as const;

/** How many resources of each kind a member has; >100 in a section exercises the capped views. */
export interface MemberVolumes {
  claims: number;
  conditions: number;
  medications: number;
  allergies: number;
  immunizations: number;
  labs: number;
  vitals: number;
  encounters: number;
}

export interface SandboxMember {
  /** What the member types on the sandbox sign-in page. */
  memberId: string;
  /** FHIR Patient.id at the sandbox. */
  patientId: string;
  givenName: string;
  familyName: string;
  birthDate: string;
  gender: 'female' | 'male';
  city: string;
  postalCode: string;
  /** Plan and employer group, exactly as the demo snapshot's table of contents names them. */
  planName: string;
  planId: string;
  employer: string | null;
  groupNumber: string;
  /** Subscriber's memberId when this member is a dependent on someone else's coverage. */
  subscriberOf: string | null;
  relationship: 'self' | 'child' | 'spouse';
  volumes: MemberVolumes;
}

export const SANDBOX_MEMBERS: readonly SandboxMember[] = [
  {
    memberId: 'GP100001', patientId: 'gp-100001', givenName: 'Maria', familyName: 'Alvarez', birthDate: '1986-04-12',
    gender: 'female', city: 'San Francisco', postalCode: '94110',
    planName: 'Golden Poppy PPO 1500 (synthetic demo)', planId: '94-5550101', employer: 'Pacific Tile & Stone Co. (synthetic demo)',
    groupNumber: 'PTS-5550101', subscriberOf: null, relationship: 'self',
    volumes: { claims: 137, conditions: 7, medications: 11, allergies: 2, immunizations: 14, labs: 233, vitals: 48, encounters: 64 },
  },
  {
    memberId: 'GP100002', patientId: 'gp-100002', givenName: 'Leo', familyName: 'Alvarez', birthDate: '2017-09-03',
    gender: 'male', city: 'San Francisco', postalCode: '94110',
    planName: 'Golden Poppy PPO 1500 (synthetic demo)', planId: '94-5550101', employer: 'Pacific Tile & Stone Co. (synthetic demo)',
    groupNumber: 'PTS-5550101', subscriberOf: 'GP100001', relationship: 'child',
    volumes: { claims: 12, conditions: 2, medications: 3, allergies: 1, immunizations: 22, labs: 6, vitals: 30, encounters: 12 },
  },
  {
    memberId: 'GP100003', patientId: 'gp-100003', givenName: 'James', familyName: 'Okafor', birthDate: '1971-01-28',
    gender: 'male', city: 'Oakland', postalCode: '94612',
    planName: 'Golden Poppy PPO 1500 (synthetic demo)', planId: '94-5550102', employer: 'Redwood Robotics Inc. (synthetic demo)',
    groupNumber: 'RR-5550102', subscriberOf: null, relationship: 'self',
    volumes: { claims: 41, conditions: 5, medications: 8, allergies: 1, immunizations: 9, labs: 105, vitals: 20, encounters: 25 },
  },
  {
    memberId: 'GP100004', patientId: 'gp-100004', givenName: 'Rosa', familyName: 'Delgado', birthDate: '1994-11-05',
    gender: 'female', city: 'Fresno', postalCode: '93721',
    planName: 'Golden Poppy Select HMO (synthetic demo)', planId: '95-5550201', employer: 'Sierra Freight Lines LLC (synthetic demo)',
    groupNumber: 'SFL-5550201', subscriberOf: null, relationship: 'self',
    volumes: { claims: 3, conditions: 0, medications: 1, allergies: 0, immunizations: 2, labs: 0, vitals: 4, encounters: 3 },
  },
];

/** The member with this sign-in id (case-insensitive), or undefined. */
export function memberById(memberId: string): SandboxMember | undefined {
  const id = memberId.trim().toUpperCase();
  return SANDBOX_MEMBERS.find((m) => m.memberId === id);
}
