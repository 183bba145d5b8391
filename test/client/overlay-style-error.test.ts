import { describe, expect, it } from 'vitest';
import { toOverlayStyleError } from '../../src/client/in-process-client.ts';
import { fromServiceError, isOverlayStyleError, OverlayStyleError } from '../../src/client/overlay-style-error.ts';
import { ServiceError, validationError } from '../../src/service/types.ts';

describe('OverlayStyleError from the service', () => {
  it('keeps a refusal\'s status, message and field errors', () => {
    const refused = validationError({ 'values.bubble.width': ['The bubble.width must be at most 10000.'] });
    const error = fromServiceError(refused);
    expect(error).toBeInstanceOf(OverlayStyleError);
    expect(error).toMatchObject({
      status: 422, kind: 'service', message: 'The bubble.width must be at most 10000.',
      errors: { 'values.bubble.width': ['The bubble.width must be at most 10000.'] }, retryAfter: undefined,
    });
    expect(error.cause).toBe(refused);
  });

  it('hides a 5xx\'s details behind "Server Error.", as the HTTP API does', () => {
    const error = fromServiceError(new ServiceError(503, 'database is locked at /var/lib/x.db'));
    expect(error.status).toBe(500);
    expect(error.message).toBe('Server Error.');
  });

  it('maps an unexpected failure of the bundled service to 500, keeping it as the cause', () => {
    const bug = new TypeError('cannot read properties of undefined');
    const error = toOverlayStyleError(bug);
    expect(error).toMatchObject({ status: 500, message: 'Server Error.', kind: 'service' });
    expect(error.cause).toBe(bug);
  });

  it('passes an OverlayStyleError through unchanged', () => {
    const original = new OverlayStyleError({ status: 404, message: 'Not Found.' });
    expect(toOverlayStyleError(original)).toBe(original);
  });
});

describe('isOverlayStyleError', () => {
  it('tells the error class, optionally of one status', () => {
    const notFound = new OverlayStyleError({ status: 404, message: 'Not Found.' });
    expect(isOverlayStyleError(notFound)).toBe(true);
    expect(isOverlayStyleError(notFound, 404)).toBe(true);
    expect(isOverlayStyleError(notFound, 422)).toBe(false);
    expect(isOverlayStyleError(new ServiceError(404, 'Not Found.'))).toBe(false);
  });
});
