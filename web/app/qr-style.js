// The QR form's style controls: selects, colour inputs and numbers that build the API's `style`.
import { h } from './core.js';
/** @typedef {import('../types').FormRow} FormRow */
/** @typedef {import('../types').QrStyle} QrStyle */
/** @typedef {import('../types').QrStyleConfig} QrStyleConfig */
/** @typedef {(name: string, label: string, kind: string, value: unknown, options?: string[]) => FormRow} FieldMaker */

/**
 * `rgb(r,g,b)` (as the API stores colours) to `#rrggbb` for a colour input.
 * @param {string | undefined} rgb
 */
export const toHex = (rgb) => {
  const m = /rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(rgb || '');
  return m
    ? `#${m
        .slice(1, 4)
        .map((v) => Number(v).toString(16).padStart(2, '0'))
        .join('')}`
    : undefined;
};

/** @param {FormRow} row */
const valueOf = (row) => row.input.value;

/**
 * A checkbox that enables the inputs it governs (a colour input always has a value, so an
 * optional colour needs a switch).
 * @param {string} id
 * @param {string} label
 * @param {boolean} checked
 * @param {FormRow[]} governed
 */
function toggle(id, label, checked, governed) {
  const input = h('input', { id, type: 'checkbox', checked });
  const sync = () => {
    for (const row of governed) row.input.disabled = !input.checked;
  };
  input.addEventListener('change', sync);
  sync();
  return {
    input,
    wrapper: h('div', { class: 'field check' }, input, h('label', { for: id }, label)),
  };
}

/**
 * @param {QrStyleConfig} config
 * @param {QrStyle | null | undefined} style
 * @param {FieldMaker} field
 */
export function styleControls(config, style, field) {
  const s = style || {};
  const dots = field('style.dots', 'Dot shape', 'select', s.dots || 'square', config.dots);
  const frameShape = field(
    'style.corners.frame.shape',
    'Corner frame shape',
    'select',
    s.corners?.frame?.shape || 'square',
    config.corners,
  );
  const ballShape = field(
    'style.corners.ball.shape',
    'Corner centre shape',
    'select',
    s.corners?.ball?.shape || 'square',
    config.corners,
  );
  const frameColour = field(
    'style.corners.frame.color',
    'Corner frame colour',
    'color',
    toHex(s.corners?.frame?.color) || '#000000',
  );
  const ballColour = field(
    'style.corners.ball.color',
    'Corner centre colour',
    'color',
    toHex(s.corners?.ball?.color) || '#000000',
  );
  const cornerColours = toggle(
    'style-corner-colours',
    'Colour the corners separately',
    Boolean(s.corners?.frame?.color || s.corners?.ball?.color),
    [frameColour, ballColour],
  );

  const g = s.gradient;
  const gradient = field('style.gradient', 'Gradient', 'select', g?.type || 'none', [
    'none',
    ...config.gradients,
  ]);
  const stops = [0, 1, 2].map((i) =>
    field(
      `style.gradient.colors.${i}`,
      `Gradient colour ${i + 1}`,
      'color',
      toHex(g?.colors[i]) || ['#000000', '#1a4fa0', '#6a1b9a'][i],
    ),
  );
  const [, , third] = stops;
  const thirdStop = toggle(
    'style-gradient-third',
    'Use a third gradient colour',
    Boolean(g?.colors[2]),
    [/** @type {FormRow} */ (third)],
  );
  const rotation = field(
    'style.gradient.rotation',
    'Gradient rotation (degrees)',
    'number',
    g?.rotation ?? 0,
  );
  rotation.input.setAttribute('min', '-360');
  rotation.input.setAttribute('max', '360');

  const f = s.frame;
  const frameType = field('style.frame.type', 'Frame', 'select', f?.type || 'none', config.frames);
  const frameText = field(
    'style.frame.text',
    `Frame text (up to ${config.frameText} characters)`,
    'text',
    f?.text ?? 'SCAN ME',
  );
  frameText.input.setAttribute('maxlength', String(config.frameText));
  const frameFill = field(
    'style.frame.color',
    'Frame colour',
    'color',
    toHex(f?.color) || '#000000',
  );
  const frameTextColour = field(
    'style.frame.textColor',
    'Frame text colour',
    'color',
    toHex(f?.textColor) || '#ffffff',
  );

  const margin = field(
    'style.margin',
    `Quiet zone in modules (${config.margin.min}-${config.margin.max})`,
    'number',
    s.margin ?? config.margin.default,
  );
  margin.input.setAttribute('min', String(config.margin.min));
  margin.input.setAttribute('max', String(config.margin.max));
  const errorCorrection = field(
    'style.errorCorrection',
    'Error correction (automatic: H with a logo, M without)',
    'select',
    s.errorCorrection || 'automatic',
    ['automatic', ...config.errorCorrections],
  );

  // A share of the width in the API, shown as a percentage; named as the API names it, so its
  // 422s land beside it.
  const pct = (/** @type {number} */ share) => String(Math.round(share * 100));
  const logoSize = field(
    'style.logoSize',
    `Logo size (% of the code's width, ${pct(config.logoSize.min)}-${pct(config.logoSize.max)})`,
    'number',
    pct(s.logoSize ?? config.logoSize.default),
  );
  logoSize.input.setAttribute('min', pct(config.logoSize.min));
  logoSize.input.setAttribute('max', pct(config.logoSize.max));

  /** @type {FormRow[]} */
  const rows = [
    dots,
    frameShape,
    ballShape,
    frameColour,
    ballColour,
    gradient,
    ...stops,
    rotation,
    frameType,
    frameText,
    frameFill,
    frameTextColour,
    margin,
    errorCorrection,
    logoSize,
  ];

  /** @returns {QrStyle | null} The style to send; null for a plain code. */
  function collect() {
    /** @type {QrStyle} */
    const out = {};
    if (valueOf(dots) !== 'square') out.dots = valueOf(dots);
    /** @type {NonNullable<QrStyle['corners']>} */
    const corners = {};
    const separate = cornerColours.input.checked;
    if (valueOf(frameShape) !== 'square' || separate) {
      corners.frame = { shape: valueOf(frameShape) };
      if (separate) corners.frame.color = valueOf(frameColour);
    }
    if (valueOf(ballShape) !== 'square' || separate) {
      corners.ball = { shape: valueOf(ballShape) };
      if (separate) corners.ball.color = valueOf(ballColour);
    }
    if (corners.frame || corners.ball) out.corners = corners;
    if (valueOf(gradient) !== 'none') {
      const colours = stops.slice(0, thirdStop.input.checked ? 3 : 2).map(valueOf);
      out.gradient = {
        type: valueOf(gradient),
        colors: colours,
        rotation: Number(valueOf(rotation)) || 0,
      };
    }
    if (valueOf(frameType) !== 'none') {
      out.frame = {
        type: valueOf(frameType),
        text: valueOf(frameText).trim(),
        color: valueOf(frameFill),
        textColor: valueOf(frameTextColour),
      };
    }
    const quiet = Number(valueOf(margin));
    if (valueOf(margin) !== '' && quiet !== config.margin.default) out.margin = quiet;
    if (valueOf(errorCorrection) !== 'automatic') out.errorCorrection = valueOf(errorCorrection);
    const share = Number(valueOf(logoSize)) / 100;
    if (valueOf(logoSize) !== '' && share !== config.logoSize.default) out.logoSize = share;
    return Object.keys(out).length ? out : null;
  }

  const box = (/** @type {string} */ legend, /** @type {HTMLElement[]} */ ...children) =>
    h('fieldset', {}, h('legend', {}, legend), ...children);
  const element = h(
    'div',
    { class: 'stack qr-style' },
    box(
      'Shapes',
      dots.wrapper,
      frameShape.wrapper,
      ballShape.wrapper,
      cornerColours.wrapper,
      frameColour.wrapper,
      ballColour.wrapper,
    ),
    box(
      'Gradient',
      gradient.wrapper,
      ...stops.slice(0, 2).map((r) => r.wrapper),
      thirdStop.wrapper,
      /** @type {FormRow} */ (third).wrapper,
      rotation.wrapper,
    ),
    box('Frame', frameType.wrapper, frameText.wrapper, frameFill.wrapper, frameTextColour.wrapper),
    box(
      'Quiet zone, error correction and logo size',
      margin.wrapper,
      errorCorrection.wrapper,
      logoSize.wrapper,
    ),
  );
  return { rows, collect, element };
}
