import { describe, expect, it } from 'vitest';
import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  it('allows 10 failures in 15 minutes, then refuses until the oldest ages out', () => {
    let now = 0;
    const t = new LoginThrottle({ maxFailures: 10, windowMs: 900_000 }, () => now);
    for (let i = 0; i < 9; i++) {
      t.failed('a@b.co', '1.1.1.1');
      now += 1000;
    }
    expect(t.retryAfterMs('a@b.co', '1.1.1.1')).toBe(0);
    t.failed('a@b.co', '1.1.1.1');
    expect(t.retryAfterMs('A@B.CO', '9.9.9.9')).toBe(900_000 - 9000);
    now = 900_000 - 1;
    expect(t.retryAfterMs('a@b.co', '9.9.9.9')).toBe(1);
    now = 900_001;
    expect(t.retryAfterMs('a@b.co', '9.9.9.9')).toBe(0);
  });

  it('limits an address across e-mails', () => {
    const t = new LoginThrottle({ maxFailures: 3, windowMs: 1000 }, () => 0);
    for (const email of ['a@x.co', 'b@x.co', 'c@x.co']) t.failed(email, '2.2.2.2');
    expect(t.retryAfterMs('d@x.co', '2.2.2.2')).toBe(1000);
    expect(t.retryAfterMs('d@x.co', '3.3.3.3')).toBe(0);
  });

  it('clears the e-mail count on success', () => {
    const t = new LoginThrottle({ maxFailures: 2, windowMs: 1000 }, () => 0);
    t.failed('a@x.co', '1.1.1.1');
    t.failed('a@x.co', '1.1.1.2');
    t.succeeded('a@x.co');
    expect(t.retryAfterMs('a@x.co', '1.1.1.3')).toBe(0);
  });

  it('forgets e-mails and addresses whose failures aged out, once a window', () => {
    let now = 0;
    const t = new LoginThrottle({ maxFailures: 10, windowMs: 1000 }, () => now);
    for (let i = 0; i < 500; i++) t.failed(`user${i}@x.co`, `10.0.${i >> 8}.${i & 255}`);
    expect(t.size).toBe(1000);
    now = 999;
    t.failed('late@x.co', '10.9.9.9');
    expect(t.size).toBe(1002);
    now = 2000;
    t.failed('again@x.co', '10.9.9.8');
    // Only the two keys of this failure are left (the 999 ms ones aged out too).
    expect(t.size).toBe(2);
  });
});
