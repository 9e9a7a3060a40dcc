import { request, type RequestOptions, type TestResponse } from './http';
import { createTestUser, type TestUser } from './users';

export const TEST_PASSWORD = 'correct horse battery';

/** A user with a password, able to sign in to the dashboard. */
export async function createDashboardUser(
  overrides: Parameters<typeof createTestUser>[0] = {},
): Promise<TestUser> {
  return createTestUser({ password: TEST_PASSWORD, ...overrides });
}

/** The `name=value` pairs of a response's Set-Cookie headers. */
export function cookiesOf(res: { headers: Headers }): string[] {
  return res.headers.getSetCookie().map((c) => c.split(';')[0] as string);
}

/** The cookie jar after a response: each cookie set replaces its namesake, an emptied one goes. */
function mergeCookies(jar: string, set: string[]): string {
  const cookies = new Map<string, string>();
  for (const pair of [...(jar ? jar.split('; ') : []), ...set]) {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    if (eq < 1) continue;
    if (pair.length === eq + 1) cookies.delete(name);
    else cookies.set(name, pair);
  }
  return [...cookies.values()].join('; ');
}

export function csrfOf(html: string): string {
  const match = /<meta name="csrf-token" content="([^"]*)">/.exec(html);
  if (!match?.[1]) throw new Error('page has no CSRF token');
  return match[1];
}

/** A browser-like client: keeps the session cookie and knows the page's CSRF token. */
export class DashboardClient {
  cookie = '';
  csrf = '';

  constructor(readonly baseUrl: string) {}

  async send<T = Record<string, unknown>>(
    path: string,
    options: RequestOptions = {},
  ): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    const res = await request<T>(this.baseUrl, path, { ...options, headers });
    const set = cookiesOf(res);
    if (set.length) this.cookie = mergeCookies(this.cookie, set);
    if (
      (res.headers.get('content-type') ?? '').includes('html') &&
      res.text.includes('csrf-token')
    ) {
      this.csrf = csrfOf(res.text);
    }
    return res;
  }

  /** A form post, as the browser sends it (the token in the body). */
  form(path: string, fields: Record<string, string>, withToken = true) {
    const body = new URLSearchParams(withToken ? { _csrf: this.csrf, ...fields } : fields);
    return this.send(path, {
      method: 'POST',
      rawBody: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  /** A JSON call to the dashboard's API, as the client script makes it. */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, withToken = true) {
    return this.send<T>(`/app/api${path}`, {
      method,
      body,
      headers: withToken ? { 'x-csrf-token': this.csrf } : {},
    });
  }

  async signIn(email: string, password = TEST_PASSWORD): Promise<TestResponse> {
    await this.send('/app/signin');
    return this.form('/app/signin', { email, password });
  }
}

/** A client already signed in as `user`. */
export async function signedIn(baseUrl: string, user: TestUser): Promise<DashboardClient> {
  const dash = new DashboardClient(baseUrl);
  const res = await dash.signIn(user.user.email);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  await dash.send('/app/account');
  return dash;
}
