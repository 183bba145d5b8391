// The spec's seven operations as HTTP requests: for each, the call to send (method, path, body,
// whether it may be repeated), the shape its 2xx body must have, and the operation's result read
// from it. The local checks run as a request is built, so a refusal leaves before anything is
// sent (as a ServiceError, which the client turns into the API's answer).
import type { z } from 'zod';
import type { Call } from './http-call.ts';
import type { SettingsPatch, SkinGrantRequest, UpdateTemplateRequest } from './overlay-style-client.ts';
import { checkIdentifier, checkIdParam, encodeJsonBody, encodePathSegment } from './request-checks.ts';
import {
  dataEnvelope, messageDataEnvelope, messageEnvelope, skinUpdateResultShape, skinViewShape, templateSettingsViewShape,
  templateUpdateResultShape, unlockDataShape, viewerSkinRefShape,
} from './response-shapes.ts';

/** A 2xx answer whose body has the operation's shape. */
export interface CheckedAnswer<B> {
  status: number;
  body: B;
  /** An earlier attempt of the call lost its answer (Answer.afterLostAnswer). */
  afterLostAnswer: boolean;
}

export interface OperationRequest<S extends z.ZodType, R> {
  call: Call;
  /** The shape the 2xx body must have. */
  shape: S;
  result(answer: CheckedAnswer<z.output<S>>): R;
}

function request<S extends z.ZodType, R>(call: Call, shape: S, result: (answer: CheckedAnswer<z.output<S>>) => R): OperationRequest<S, R> {
  return { call, shape, result };
}

const presetQuery = (presetId: number | undefined): string => {
  const id = checkIdParam('preset_id', presetId);
  return id === undefined ? '' : `?preset_id=${id}`;
};

export const operationRequests = {
  getTemplate: (presetId?: number) => request(
    { method: 'GET', path: `/template${presetQuery(presetId)}`, idempotent: true },
    dataEnvelope(templateSettingsViewShape),
    ({ body }) => body.data,
  ),

  updateTemplate: (update: UpdateTemplateRequest) => request(
    { method: 'PUT', path: '/template', body: encodeJsonBody(update), idempotent: true },
    messageDataEnvelope(templateUpdateResultShape),
    ({ body }) => body.data,
  ),

  listSkins: (presetId?: number) => request(
    { method: 'GET', path: `/skins${presetQuery(presetId)}`, idempotent: true },
    dataEnvelope(skinViewShape.array()),
    ({ body }) => body.data,
  ),

  updateSkin: (skinId: number, values: SettingsPatch) => {
    const id = checkIdParam('skin_id', skinId)!;
    return request(
      { method: 'PUT', path: `/skins/${id}`, body: encodeJsonBody({ values }), idempotent: true },
      messageDataEnvelope(skinUpdateResultShape),
      ({ body }) => body.data,
    );
  },

  unlockSkin: (grant: SkinGrantRequest) => request(
    { method: 'POST', path: '/viewers/unlock-skin', body: encodeJsonBody(grant), idempotent: true },
    messageDataEnvelope(unlockDataShape),
    ({ status, body, afterLostAnswer }) => {
      const created = status === 201;
      // "Already held" in answer to a repeat may be the grant the lost attempt made.
      return { created, ...body.data, ...(!created && afterLostAnswer ? { afterLostAnswer: true as const } : {}) };
    },
  ),

  revokeSkin: (grant: SkinGrantRequest) => request(
    { method: 'DELETE', path: '/viewers/unlock-skin', body: encodeJsonBody(grant), idempotent: false },
    messageEnvelope,
    (): void => undefined,
  ),

  listViewerSkins: (identifier: string) => {
    const segment = encodePathSegment(checkIdentifier(identifier));
    return request(
      { method: 'GET', path: `/viewers/${segment}/skins`, idempotent: true },
      dataEnvelope(viewerSkinRefShape.array()),
      ({ body }) => body.data,
    );
  },
};
