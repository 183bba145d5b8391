import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isTlsFailureCode, isUntrustedCertificateCode, parseRetryAfterMs } from '../../src/client/retry-policy.ts';

describe('backoffDelayMs', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles per retry and never exceeds maxDelayMs', () => {
    expect([0, 1, 2, 3, 4, 10].map((retry) => backoffDelayMs(retry, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('waits at least half of the ceiling', () => {
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelayMs(retry, policy, () => 0))).toEqual([50, 100, 200, 400, 500]);
  });

  it('stays within [ceiling/2, ceiling] for any retry and jitter', () => {
    fc.assert(fc.property(fc.nat(50), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
      const delay = backoffDelayMs(retry, policy, () => r);
      return delay >= Math.floor(ceiling / 2) && delay <= ceiling;
    }));
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs('17', now)).toBe(17_000);
    expect(parseRetryAfterMs(' 60 ', now)).toBe(60_000);
  });

  it('reads an HTTP-date relative to now, never negative', () => {
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const header of [undefined, '', 'soon', '-5', '1.5', '12abc']) {
      expect(parseRetryAfterMs(header, now)).toBeUndefined();
    }
  });
});

describe('isTlsFailureCode', () => {
  it('knows every failed certificate check as TLS, not only those whose names say CERT', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'INVALID_CA', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO']) {
      expect(isTlsFailureCode(code), code).toBe(true);
    }
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'ETIMEDOUT']) expect(isTlsFailureCode(code), code).toBe(false);
  });

  it('tells a certificate that could be trusted from one that is wrong', () => {
    expect(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'].every(isUntrustedCertificateCode)).toBe(true);
    expect(['CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER'].some(isUntrustedCertificateCode)).toBe(false);
  });
});
