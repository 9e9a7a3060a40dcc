import * as fontkit from 'fontkit';
import type { Seg } from './path';

let cached: fontkit.Font | undefined;

/** Inter Bold (SIL Open Font License), read once: frame text is drawn as its glyph outlines. */
function font(): fontkit.Font {
  cached ??= fontkit.openSync(
    require.resolve('@fontsource/inter/files/inter-latin-700-normal.woff'),
  ) as fontkit.Font;
  return cached;
}

/** The characters of `text` the font cannot draw (each once), for the 422 that names them. */
export function missingGlyphs(text: string): string[] {
  const f = font();
  const missing = new Set<string>();
  for (const char of text) {
    if (char === ' ') continue;
    if (!f.hasGlyphForCodePoint(char.codePointAt(0) ?? 0)) missing.add(char);
  }
  return [...missing];
}

/**
 * The text's outlines, its cap height `capHeight` design units, centred on (cx, baseline), shrunk
 * to `maxWidth` if wider. Quadratic curves are raised to cubics, which PostScript needs.
 */
export function textOutline(
  text: string,
  cx: number,
  baseline: number,
  capHeight: number,
  maxWidth: number,
): Seg[] {
  const f = font();
  const run = f.layout(text);
  let scale = capHeight / f.capHeight;
  if (run.advanceWidth * scale > maxWidth) scale = maxWidth / run.advanceWidth;
  let penX = cx - (run.advanceWidth * scale) / 2;
  const out: Seg[] = [];
  run.glyphs.forEach((glyph, i) => {
    const pos = run.positions[i];
    const ox = penX + (pos?.xOffset ?? 0) * scale;
    const oy = baseline - (pos?.yOffset ?? 0) * scale;
    const X = (v: number) => ox + v * scale;
    const Y = (v: number) => oy - v * scale;
    let cur: [number, number] = [0, 0];
    let open = false;
    for (const { command, args } of glyph.path.commands) {
      const a = args as number[];
      if (command === 'moveTo') {
        if (open) out.push(['Z']);
        cur = [a[0] ?? 0, a[1] ?? 0];
        out.push(['M', X(cur[0]), Y(cur[1])]);
        open = true;
      } else if (command === 'lineTo') {
        cur = [a[0] ?? 0, a[1] ?? 0];
        out.push(['L', X(cur[0]), Y(cur[1])]);
      } else if (command === 'quadraticCurveTo') {
        const [qx = 0, qy = 0, x = 0, y = 0] = a;
        const c1 = [cur[0] + (2 / 3) * (qx - cur[0]), cur[1] + (2 / 3) * (qy - cur[1])];
        const c2 = [x + (2 / 3) * (qx - x), y + (2 / 3) * (qy - y)];
        out.push(['C', X(c1[0] ?? 0), Y(c1[1] ?? 0), X(c2[0] ?? 0), Y(c2[1] ?? 0), X(x), Y(y)]);
        cur = [x, y];
      } else if (command === 'bezierCurveTo') {
        const [x1 = 0, y1 = 0, x2 = 0, y2 = 0, x = 0, y = 0] = a;
        out.push(['C', X(x1), Y(y1), X(x2), Y(y2), X(x), Y(y)]);
        cur = [x, y];
      } else if (command === 'closePath') {
        out.push(['Z']);
        open = false;
      }
    }
    if (open) out.push(['Z']);
    penX += (pos?.xAdvance ?? 0) * scale;
  });
  return out;
}
