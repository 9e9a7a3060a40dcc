import { html } from '../html';
import { layout } from './layout';

export function errorPage(options: {
  csrf: string;
  signedIn: boolean;
  status: number;
  message: string;
}): string {
  const { csrf, signedIn, status, message } = options;
  const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : 'Something went wrong';
  const body = html`<section class="narrow">
    <h1>${title}</h1>
    <p role="alert">${message}</p>
    <p><a href="/app">Back to the dashboard</a></p>
  </section>`;
  return layout({ title, csrf, body, path: signedIn ? '' : undefined });
}
