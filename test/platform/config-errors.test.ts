/**
 * A bad setting stops start-up with one line naming the variable; a secret's value is never in
 * that line (it ends up in logs and CI output).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../engine/core/config.ts';

describe('configuration errors', () => {
  it('names the variable and quotes a plain value', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(new ConfigError('PORT="eighty" is invalid: expected an integer from 0 to 65535'));
  });

  it.each([
    ['STRIPE_SECRET_KEY', 'sk_live_has space', { PAYMENT_PROCESSOR: 'embedded' }],
    ['STRIPE_WEBHOOK_SECRET', 'whsec_!!secret!!', {}],
    ['DATABASE_URL', 'mysql://admin:hunter2@db/x', {}],
    ['RECORDS_TOKEN_KEY', 'short-secret-key', {}],
  ])('never echoes %s', (name, value, extra) => {
    let message = '';
    try {
      loadConfig({ ...extra, [name]: value });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(new RegExp(`^${name}=\\(hidden, ${value.length} characters\\) is invalid`));
    expect(message).not.toContain(value);
  });
});
