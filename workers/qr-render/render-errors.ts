/** The same input always fails the same way: retrying cannot help. */
export class RenderError extends Error {
  override name = 'RenderError';
}
