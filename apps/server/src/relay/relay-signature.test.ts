/**
 * The relay's signed header (`relay-signature.ts`): what a relaying instance vouches for holds
 * only for the method, target and body it was signed with, under the shared secret, within its
 * time, for the leader's epoch, and once.
 */
import { describe, expect, it } from 'vitest';
import {
  RELAY_SIGNATURE_TTL_MS,
  RelaySigner,
  RelayVerifier,
  bodyHolds,
  type RelayClaims,
} from './relay-signature';

const SECRET = 'relay-signature-test-secret-0123456789';
const T0 = 1_800_000_000_000;
const claims: RelayClaims = { client: '2001:db8::7', counted: true, epoch: 4 };
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const wire = { method: 'POST', target: '/api/v1/calls/7/transfer', body: '{"user_id":3}' };

function verifierAt(now: { ms: number }) {
  return new RelayVerifier(SECRET, () => now.ms);
}

describe('a relay signature', () => {
  it('holds for what it was signed with, and says what the relaying instance vouched for', () => {
    const header = new RelaySigner(SECRET).sign(claims, wire, T0);
    const verdict = verifierAt({ ms: T0 + 1_000 }).verify(header, wire, 4);
    expect(verdict).toMatchObject({ ok: true, relay: { ...claims } });
    if (!verdict.ok) return;
    expect(bodyHolds(verdict.relay, wire.body)).toBe(true);
    expect(bodyHolds(verdict.relay, '{"user_id":4}')).toBe(false);
  });

  it.each([
    ['another method', { ...wire, method: 'PUT' }, 4, T0],
    ['another target', { ...wire, target: '/api/v1/calls/8/transfer' }, 4, T0],
    ['too late', wire, 4, T0 + RELAY_SIGNATURE_TTL_MS + 1],
    ['too early (a clock ahead)', wire, 4, T0 - RELAY_SIGNATURE_TTL_MS - 1],
  ])('does not hold for %s', (_case, received, epoch, nowMs) => {
    const header = new RelaySigner(SECRET).sign(claims, wire, T0);
    expect(verifierAt({ ms: nowMs }).verify(header, received, epoch)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('holds at the edge of its time', () => {
    const header = new RelaySigner(SECRET).sign(claims, wire, T0);
    const verdict = verifierAt({ ms: T0 + RELAY_SIGNATURE_TTL_MS }).verify(header, wire, 4);
    expect(verdict.ok).toBe(true);
  });

  it('does not hold under another secret, nor changed in any field', () => {
    const header = new RelaySigner(SECRET).sign(claims, wire, T0);
    const other = new RelaySigner(`${SECRET}-other`).sign(claims, wire, T0);
    const verifier = verifierAt({ ms: T0 });
    expect(verifier.verify(other, wire, 4).ok).toBe(false);
    const fields = header.split('.');
    for (let i = 1; i < fields.length; i++) {
      const changed = [...fields];
      const field = fields[i]!;
      const swap = (c: string) => (c === 'A' ? 'B' : 'A');
      // The first character and the last: the last carries unused bits in base64url.
      for (const at of new Set([0, field.length - 1])) {
        changed[i] =
          i === 3
            ? field === '1'
              ? '0'
              : '1'
            : `${field.slice(0, at)}${swap(field[at]!)}${field.slice(at + 1)}`;
        expect(verifier.verify(changed.join('.'), wire, 4).ok, `field ${i} at ${at}`).toBe(false);
      }
    }
    expect(verifier.verify(undefined, wire, 4).ok).toBe(false);
    expect(verifier.verify(['a', 'b'], wire, 4).ok).toBe(false);
  });

  it('is refused once used, however its MAC is spelled', () => {
    const verifier = verifierAt({ ms: T0 });
    const header = new RelaySigner(SECRET).sign(claims, wire, T0);
    expect(verifier.verify(header, wire, 4).ok).toBe(true);
    const mac = header.slice(header.lastIndexOf('.') + 1);
    const head = header.slice(0, header.lastIndexOf('.') + 1);
    // A 32-byte MAC is 43 base64url characters; the last one's two low bits decode to nothing.
    const last = BASE64URL.indexOf(mac.at(-1)!);
    for (const low of [0, 1, 2, 3]) {
      const spelled = `${mac.slice(0, -1)}${BASE64URL[(last & ~3) | low]}`;
      expect(verifier.verify(head + spelled, wire, 4).ok, spelled).toBe(false);
    }
  });

  it('is refused as misdirected by the leader of another epoch, and as invalid once used', () => {
    const signer = new RelaySigner(SECRET);
    const verifier = verifierAt({ ms: T0 });
    const header = signer.sign(claims, wire, T0);
    expect(verifier.verify(header, wire, 5)).toEqual({ ok: false, reason: 'misdirected' });
    expect(verifier.verify(header, wire, 4).ok).toBe(true);
    expect(verifier.verify(header, wire, 4)).toEqual({ ok: false, reason: 'invalid' });
    // The same request signed again (a fresh nonce) holds.
    expect(verifier.verify(signer.sign(claims, wire, T0), wire, 4).ok).toBe(true);
  });

  it('carries a leader without a lease as no epoch', () => {
    const header = new RelaySigner(SECRET).sign({ ...claims, epoch: null }, wire, T0);
    expect(verifierAt({ ms: T0 }).verify(header, wire, 4)).toEqual({
      ok: false,
      reason: 'misdirected',
    });
    const again = new RelaySigner(SECRET).sign({ ...claims, epoch: null }, wire, T0);
    expect(verifierAt({ ms: T0 }).verify(again, wire, null).ok).toBe(true);
  });
});
