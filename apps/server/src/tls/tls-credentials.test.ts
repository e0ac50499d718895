import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, connect } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coveredNames, loadTlsCredentials, machineNames, TlsSetupError } from './tls-credentials';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'leadline-tls-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LAN = ['192.0.2.10'];

/** Completes a TLS handshake with `servername`, trusting only `ca`; resolves with the error. */
async function handshake(cert: string, key: string, host: string): Promise<Error | null> {
  const server = createServer({ cert, key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<Error | null>((resolve) => {
      const socket = connect({
        host: '127.0.0.1',
        port,
        ca: cert,
        ...(host === '127.0.0.1' ? {} : { servername: host }),
        // Check the name the browser would check, whatever address was dialled.
        checkServerIdentity: (_hostname, peer) => checkServerIdentity(host, peer),
      });
      socket.once('secureConnect', () => {
        socket.end();
        resolve(null);
      });
      socket.once('error', resolve);
    });
  } finally {
    server.close();
  }
}

describe('TLS credentials', () => {
  it('are none when TLS is off', async () => {
    expect(await loadTlsCredentials({ mode: 'off' }, dir, LAN)).toBeNull();
  });

  it('self-signed: made once for localhost, the host name, loopback and the LAN addresses', async () => {
    const made = (await loadTlsCredentials({ mode: 'self-signed' }, dir, LAN))!;
    const cert = new X509Certificate(made.cert);
    expect([...coveredNames(cert)].sort()).toEqual(machineNames(LAN).sort());
    expect(cert.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    // Browsers accept it for each name (once trusted): a real handshake checks the names.
    expect(await handshake(made.cert, made.key, 'localhost')).toBeNull();
    expect(await handshake(made.cert, made.key, '127.0.0.1')).toBeNull();
    expect(await handshake(made.cert, made.key, 'elsewhere.example')).toBeInstanceOf(Error);
    // Kept under DATA_DIR/tls and reused at the next start.
    expect(readFileSync(join(dir, 'tls', 'cert.pem'), 'utf8')).toBe(made.cert);
    const again = await loadTlsCredentials({ mode: 'self-signed' }, dir, LAN);
    expect(again).toEqual(made);
  });

  it('self-signed: made anew when the machine gained an address, or the certificate nears its end', async () => {
    const first = (await loadTlsCredentials({ mode: 'self-signed' }, dir, LAN))!;
    const moved = (await loadTlsCredentials({ mode: 'self-signed' }, dir, [
      ...LAN,
      '198.51.100.7',
    ]))!;
    expect(moved.cert).not.toBe(first.cert);
    expect(new X509Certificate(moved.cert).subjectAltName).toContain('198.51.100.7');
    const validTo = Date.parse(new X509Certificate(moved.cert).validTo);
    const later = await loadTlsCredentials(
      { mode: 'self-signed' },
      dir,
      [...LAN, '198.51.100.7'],
      validTo - 86_400_000,
    );
    expect(later!.cert).not.toBe(moved.cert);
  });

  it('files: reads the operator’s certificate and key', async () => {
    const made = (await loadTlsCredentials({ mode: 'self-signed' }, dir, LAN))!;
    writeFileSync(join(dir, 'c.pem'), made.cert);
    writeFileSync(join(dir, 'k.pem'), made.key);
    const files = {
      mode: 'files',
      certPath: join(dir, 'c.pem'),
      keyPath: join(dir, 'k.pem'),
    } as const;
    expect(await loadTlsCredentials(files, dir, LAN)).toEqual(made);
  });

  it('files: a missing file, a non-certificate or a key of another certificate is a clear error', async () => {
    const a = (await loadTlsCredentials({ mode: 'self-signed' }, join(dir, 'a'), LAN))!;
    const b = (await loadTlsCredentials({ mode: 'self-signed' }, join(dir, 'b'), LAN))!;
    writeFileSync(join(dir, 'a.pem'), a.cert);
    writeFileSync(join(dir, 'b-key.pem'), b.key);
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate');
    const files = (cert: string, key: string) =>
      loadTlsCredentials(
        { mode: 'files', certPath: join(dir, cert), keyPath: join(dir, key) },
        dir,
        LAN,
      );
    await expect(files('missing.pem', 'b-key.pem')).rejects.toThrow(
      /Cannot read the TLS certificate or key/,
    );
    await expect(files('junk.pem', 'b-key.pem')).rejects.toThrow(
      /are not a PEM certificate and key/,
    );
    await expect(files('a.pem', 'b-key.pem')).rejects.toThrow(/does not belong to the certificate/);
    await expect(files('a.pem', 'b-key.pem')).rejects.toBeInstanceOf(TlsSetupError);
  });
});
