/**
 * The terms-of-service and privacy-notice versions the service currently publishes (issue 2,
 * item 10). POST /api/profile/accept-terms must name exactly these; onboarding is complete only
 * while the latest acceptance matches them, so publishing a new version re-opens onboarding.
 */
export const CURRENT_TERMS_VERSION = '2026-01-01';
export const CURRENT_PRIVACY_VERSION = '2026-01-01';

/** Where the documents are published, relative to the main origin. */
export const TERMS_PATH = '/legal/terms';
export const PRIVACY_PATH = '/legal/privacy';
