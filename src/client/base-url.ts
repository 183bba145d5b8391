// The remote service's {base_url}: an absolute http(s) URL, API prefix included, with no
// credentials (the key goes in the Authorization header) and no query or fragment (paths are
// appended to it). One check for the config schema and for createHttpClient.

export interface Endpoint {
  origin: string;
  /** Path of the base URL without a trailing slash ('' for the root). */
  basePath: string;
}

export interface BaseUrlProblem {
  message: string;
  /** The URL may hold a secret (credentials, a query): it must not be repeated in the error. */
  mayHoldSecret: boolean;
}

/** What is wrong with `baseUrl` as a base URL, or undefined when nothing is. */
export function baseUrlProblem(baseUrl: unknown): BaseUrlProblem | undefined {
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) {
    return { message: 'must be an absolute http(s) URL such as https://example.com/api/v1', mayHoldSecret: false };
  }
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { message: `must use http or https, not ${url.protocol}`, mayHoldSecret: false };
  if (url.username !== '' || url.password !== '') {
    return { message: 'must not carry credentials (user:password@); the API key goes in apiKey', mayHoldSecret: true };
  }
  if (url.search !== '' || url.hash !== '') return { message: 'must not have a query (?...) or fragment (#...)', mayHoldSecret: true };
  return undefined;
}

/** The origin and base path of a base URL; a TypeError naming the problem when it is not one. */
export function parseBaseUrl(baseUrl: unknown): Endpoint {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) throw new TypeError(`createHttpClient: baseUrl ${problem.message}`);
  const url = new URL(baseUrl as string);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}
