import { createHmac, timingSafeEqual } from 'node:crypto';

/** A remembered device skips the second factor this long (issue 23: 30 days). */
export const REMEMBER_DEVICE_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * What a remembered device is bound to: the user, the device epoch of their second factor
 * (changed when it is disabled or the devices are forgotten) and their password's stamp (so a
 * password change forgets every device too).
 */
export interface DeviceBinding {
  userId: number;
  deviceEpoch: string;
  passwordStamp: string;
}

function mac(secret: string, binding: DeviceBinding, expires: number): string {
  return createHmac('sha256', secret)
    .update(
      `linkqr remembered device\n${binding.userId}\n${expires}\n${binding.deviceEpoch}\n${binding.passwordStamp}`,
    )
    .digest('base64url');
}

/** The cookie value: `<user id>.<expiry, ms>.<HMAC>`; it names no secret. */
export function rememberDevice(secret: string, binding: DeviceBinding, now = Date.now()): string {
  const expires = now + REMEMBER_DEVICE_DAYS * DAY_MS;
  return `${binding.userId}.${expires}.${mac(secret, binding, expires)}`;
}

/** Whether `token` remembers this device for `binding` now. */
export function isRemembered(
  secret: string,
  token: string | undefined,
  binding: DeviceBinding,
  now = Date.now(),
): boolean {
  const [user, expiry, given] = (token ?? '').split('.');
  if (!user || !expiry || !given || Number(user) !== binding.userId) return false;
  const expires = Number(expiry);
  if (!Number.isSafeInteger(expires) || expires <= now) return false;
  const expected = Buffer.from(mac(secret, binding, expires));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
