// One call to the service's HTTP API as a well-behaved tool makes it (the headers the spec asks
// for, a JSON body when there is one), answered as status and parsed body.

export type ApiCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

export function apiCaller(origin: string, apiKey: string, userAgent: string): ApiCall {
  return async (method, path, body) => {
    const response = await fetch(`${origin}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: 'application/json',
        'user-agent': userAgent,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}
