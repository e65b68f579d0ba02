/**
 * Every area's job workers, in one list, as engine/operations.ts lists the operations. The
 * composition root (api/app.ts) calls each registration once at start-up, after the platform
 * opened and before requests are served; a registration calls `ports.jobs.work(name, handler)`
 * for each queue its area owns (and so creates the queue: on PGlite a queue must exist before
 * the first send to it inside a transaction). The pricing-only host runs no workers.
 */
import type { Logger } from 'pino';
import type { Ports } from './core/context.ts';
import { registerConsultationWorkers } from './consultations/consultation.workers.ts';
import { registerPaymentWorkers } from './payments/payments.workers.ts';
import { recordsWorkers } from './records/records.workers.ts';
import { registerVisitWorkers } from './visits/visits.workers.ts';
import { registerPrescriptionWorkers } from './prescriptions/prescriptions.workers.ts';
import { registerCareJobWorkers } from './carejobs/care-jobs.workers.ts';
import { registerMediaWorkers } from './media/media.workers.ts';

/** The ports a worker registration receives: the platform's are always present. */
export type PlatformPorts = Ports & Required<Pick<Ports, 'jobs' | 'outbox' | 'bus'>>;

/** One area's workers: registers its handlers with `ports.jobs.work`. */
export type WorkerRegistration = (ports: PlatformPorts, log: Logger) => Promise<void>;

/** All areas' worker registrations. */
export function allWorkers(): WorkerRegistration[] {
  return [registerConsultationWorkers, registerPaymentWorkers, recordsWorkers, registerVisitWorkers, registerPrescriptionWorkers, registerCareJobWorkers, registerMediaWorkers];
}
