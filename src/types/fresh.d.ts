declare module 'fresh' {
  /** Whether a conditional request's validators match the response's (Express's `req.fresh`). */
  export default function fresh(
    requestHeaders: Record<string, string | string[] | undefined>,
    responseHeaders: { etag?: string; 'last-modified'?: string },
  ): boolean;
}
