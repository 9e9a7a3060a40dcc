import {
  CORNER_SHAPES,
  DOT_STYLES,
  FRAME_TYPES,
  type QrStyle,
} from '../../src/qr-codes/design/style';

/** Every design the tests draw: each dots style, corner shape, gradient and frame at least once. */
export const DESIGNS: Array<[string, QrStyle]> = [
  ...DOT_STYLES.map((dots): [string, QrStyle] => [`dots ${dots}`, { dots }]),
  ...CORNER_SHAPES.map((shape): [string, QrStyle] => [
    `corners ${shape}`,
    { corners: { frame: { shape, color: '#1a237e' }, ball: { shape, color: 'rgb(136,14,79)' } } },
  ]),
  [
    'a linear gradient',
    { dots: 'rounded', gradient: { type: 'linear', colors: ['#000000', '#0d47a1'], rotation: 45 } },
  ],
  [
    'a radial gradient',
    { dots: 'dots', gradient: { type: 'radial', colors: ['#311b92', '#000000', '#004d40'] } },
  ],
  ...FRAME_TYPES.map((type): [string, QrStyle] => [
    `frame ${type}`,
    { frame: { type, text: 'SCAN ME', color: '#222222' }, dots: 'classy' },
  ]),
];
