import Joi from 'joi';
import { formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson, record } from '../shared/http/responses';
import type { Enrolment, TwoFactorStatus } from './two-factor.service';

export function presentStatus(status: TwoFactorStatus) {
  return {
    enabled: status.enabled,
    enabledAt: formatOptionalDateTime(status.enabledAt),
    recoveryCodesLeft: status.recoveryCodesLeft,
    pending: status.pending,
  };
}

export const statusJson = record({
  enabled: Joi.boolean(),
  enabledAt: dateTimeJson.allow(null),
  recoveryCodesLeft: Joi.number().integer().min(0).example(10),
  pending: Joi.boolean().description('a set-up was started and not yet confirmed with a code'),
});

export function presentEnrolment(enrolment: Enrolment) {
  return { secret: enrolment.secret, uri: enrolment.uri, qr: enrolment.qrSvg };
}

export const enrolmentJson = record({
  secret: Joi.string().description('the TOTP secret (base32), to type in by hand').example('JBSW…'),
  uri: Joi.string()
    .description('the otpauth:// URI the QR code holds')
    .example('otpauth://totp/linkqr:ada%40example.com?secret=JBSW…&issuer=linkqr'),
  qr: Joi.string().description('the QR code of `uri`, an SVG document'),
});

export const recoveryCodesJson = Joi.array()
  .items(Joi.string().example('4k7p-qz2m-x9ab-3hcd'))
  .length(10)
  .description('ten one-time recovery codes, shown only here');
