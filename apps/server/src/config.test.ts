import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('defaults to plain HTTP and our SDK', () => {
    const config = loadConfig({});
    expect(config.tls).toEqual({ mode: 'off' });
    expect(config.voiceSdk).toBe('leadline');
  });

  it('TLS=self-signed, or the operator’s TLS_CERT and TLS_KEY', () => {
    expect(loadConfig({ TLS: 'self-signed' }).tls).toEqual({ mode: 'self-signed' });
    expect(loadConfig({ TLS_CERT: '/etc/c.pem', TLS_KEY: '/etc/k.pem' }).tls).toEqual({
      mode: 'files',
      certPath: '/etc/c.pem',
      keyPath: '/etc/k.pem',
    });
  });

  it.each([
    [{ TLS_CERT: '/etc/c.pem' }, 'TLS_CERT and TLS_KEY go together: set both, or neither.'],
    [{ TLS_KEY: '/etc/k.pem' }, 'TLS_CERT and TLS_KEY go together: set both, or neither.'],
    [
      { TLS: 'self-signed', TLS_CERT: '/c', TLS_KEY: '/k' },
      'Set either TLS=self-signed or TLS_CERT and TLS_KEY, not both.',
    ],
    [{ TLS: 'yes' }, /^Invalid setting TLS:/],
    [{ VOICE_SDK: 'other' }, /^Invalid setting VOICE_SDK:/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('VOICE_SDK=twilio picks the official SDK', () => {
    expect(loadConfig({ VOICE_SDK: 'twilio' }).voiceSdk).toBe('twilio');
  });
});
