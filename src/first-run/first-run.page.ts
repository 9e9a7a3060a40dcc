import { escapeHtml } from '../shared/http/pages';
import { FIRST_USER_COMMAND } from '../shared/infra/start-banner';

export interface FirstRunFacts {
  publicUrl: string;
  /** The dashboard's own origin (APP_URL) when it is apart from PUBLIC_URL. */
  appUrl?: string;
  /** No account exists yet: the page gives the command that creates the first one. */
  noUserYet: boolean;
}

/** The body of `GET /` on the service's own host: what this is, where to go, what to run. */
export function firstRunBody({ publicUrl, appUrl, noUserYet }: FirstRunFacts): string {
  const first = noUserYet
    ? `<h2>Create the first user</h2>
<p>No account exists yet. In a terminal beside the running service (where you ran <code>npm start</code>):</p>
<pre><code>${escapeHtml(FIRST_USER_COMMAND)}</code></pre>
<p>It prints the user's API key, once. With <code>docker compose</code>: <code>docker compose exec api node dist/src/cli/main.js user:create …</code> with the same options. Then sign in to the dashboard with that email and password.</p>`
    : '';
  return `<h1>linkqr</h1>
<p>A self-hosted service for short links and QR codes: each user manages their links, QR codes, branded domains, campaigns and tracking pixels, and sees every click and scan counted.</p>
<ul>
<li><a href="${escapeHtml(appUrl ?? '')}/app">Dashboard</a>: sign in and manage your links and QR codes.</li>
<li><a href="/docs">API documentation</a>: the JSON API under <code>${escapeHtml(publicUrl)}/api</code>, called with your API key.</li>
</ul>
${first}`;
}
