/**
 * The approval sheet (service-spec.md, Care job: `sheet`, what the user sees on the approval
 * page): what will be done, where, the agent's note, the cost and its hold, and the prices our
 * pricing engine publishes for the providers named, beside the agent's own figures.
 */
import type { HandlerContext } from '../core/context.ts';
import type { PlanHints } from '../pricing/pricing.schema.ts';
import { agentFlags, priceJob, uncheckedClaims, type PriceTarget } from './care-job-pricing.ts';
import type { BookAppointmentParamsSchema, CancelOrRescheduleParamsSchema, MoveReferralParamsSchema, Office, Sheet } from './care-jobs.schema.ts';
import type { z } from 'zod';

export type TypedParams =
  | { jobType: 'move_referral'; params: z.infer<typeof MoveReferralParamsSchema> }
  | { jobType: 'book_appointment'; params: z.infer<typeof BookAppointmentParamsSchema> }
  | { jobType: 'cancel_or_reschedule'; params: z.infer<typeof CancelOrRescheduleParamsSchema> };

function office(o: Office): string {
  const who = [o.providerName, o.facilityName].filter(Boolean).join(', ') || `NPI ${o.npi}`;
  const where = [o.address, o.city, `${o.state}${o.zip ? ` ${o.zip}` : ''}`].filter(Boolean).join(', ');
  return `${who} (${where})${o.phone ? `, phone ${o.phone}` : ''}`;
}

const target = (o: Office): PriceTarget => ({ role: 'target', npi: o.npi, providerName: o.providerName ?? o.facilityName, city: o.city, state: o.state, zip: o.zip });

function claimsNote(unchecked: string[]): string {
  const base = 'These figures are the agent\'s own, not ours; the published rates above are from the insurers\' files.';
  return unchecked.length ? `${base} No published rate to check ${unchecked.join(' and ')} against.` : base;
}

export interface SheetInput {
  job: TypedParams;
  context: string | undefined;
  cost: { amountCents: number; description: string } | undefined;
  currency: string;
  planHints: PlanHints | undefined;
  patientId: string | undefined;
}

/** Builds the sheet; prices through the pricing engine when the job names a provider. */
export async function buildSheet(ctx: HandlerContext, s: SheetInput): Promise<Sheet> {
  const lines: Sheet['lines'] = [];
  let title: string;
  let targets: PriceTarget[] = [];
  let code: string | undefined;
  let claims: { estimates?: { targetCents?: number | undefined; sourceCents?: number | undefined; note?: string | undefined } | undefined; savingsCents?: number | undefined } | null = null;
  const j = s.job;
  switch (j.jobType) {
    case 'book_appointment': {
      const p = j.params;
      title = `Book an appointment with ${p.provider.providerName ?? p.provider.facilityName ?? `NPI ${p.provider.npi}`}`;
      lines.push({ label: 'Provider', value: office(p.provider) });
      if (p.specialty) lines.push({ label: 'Specialty', value: p.specialty });
      if (p.appointmentLabel) lines.push({ label: 'Appointment', value: p.appointmentLabel });
      if (p.reason) lines.push({ label: 'Reason', value: p.reason });
      targets = [target(p.provider)];
      code = p.serviceCode;
      if (p.estimates) claims = { estimates: p.estimates };
      break;
    }
    case 'cancel_or_reschedule': {
      const p = j.params;
      title = p.newTimeLabel ? `Reschedule your appointment: ${p.appointmentLabel}` : `Cancel your appointment: ${p.appointmentLabel}`;
      lines.push({ label: 'Provider', value: office(p.provider) });
      lines.push({ label: 'Appointment', value: p.appointmentLabel });
      lines.push({ label: 'Action', value: p.newTimeLabel ? `Move it to ${p.newTimeLabel}` : 'Cancel it' });
      targets = [target(p.provider)];
      break;
    }
    case 'move_referral': {
      const p = j.params;
      title = `Move your ${p.specialty} referral to ${p.target.providerName ?? p.target.facilityName ?? `NPI ${p.target.npi}`}`;
      lines.push({ label: 'Referral', value: [p.referral.description, p.referral.writtenApprox && `written ${p.referral.writtenApprox}`, p.referral.referenceNumber && `reference ${p.referral.referenceNumber}`].filter(Boolean).join('; ') });
      const src = [p.source.providerName, p.source.facilityName].filter(Boolean).join(', ');
      lines.push({ label: 'From', value: `${src || 'the current provider'}${p.source.phone ? `, phone ${p.source.phone}` : ''}` });
      lines.push({ label: 'To', value: office(p.target) });
      if (p.appointmentLabel) lines.push({ label: 'Appointment', value: p.appointmentLabel });
      if (p.openings?.length) lines.push({ label: 'Openings the agent found', value: p.openings.join('; ') });
      targets = [target(p.target)];
      if (p.source.npi || p.source.providerName || p.source.facilityName) {
        targets.push({ role: 'source', npi: p.source.npi, providerName: p.source.providerName ?? p.source.facilityName, city: p.source.city, state: p.source.state, zip: p.source.zip });
      }
      code = p.serviceCode;
      if (p.estimates || p.savingsCents !== undefined) claims = { estimates: p.estimates, savingsCents: p.savingsCents };
      break;
    }
  }
  const pricing = await priceJob(ctx, targets, code, s.planHints, s.patientId);
  return {
    title,
    lines,
    agentNote: s.context ?? null,
    cost: s.cost ? { amountCents: s.cost.amountCents, currency: s.currency, description: s.cost.description, holdRequired: true } : null,
    pricing,
    agentClaims: claims ? {
      estimates: claims.estimates ?? null,
      savingsCents: claims.savingsCents ?? null,
      flags: agentFlags(claims.estimates, claims.savingsCents, pricing.checks),
      note: claimsNote(uncheckedClaims(claims.estimates, claims.savingsCents, pricing.checks)),
    } : null,
  };
}
