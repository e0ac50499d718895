/**
 * HTTPS for the embedded default: browsers give the microphone only to secure origins, so an
 * agent on the LAN needs `https://<machine>:3000`. Either the operator's certificate files
 * (`TLS_CERT`, `TLS_KEY`), or (`TLS=self-signed`) a certificate made once for the machine's names
 * and addresses, kept under `DATA_DIR/tls` and reused while it still covers them and is valid.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';

/** How the server speaks TLS. */
export type TlsSetting =
  { mode: 'off' } | { mode: 'files'; certPath: string; keyPath: string } | { mode: 'self-signed' };

/** A PEM certificate (chain) and its private key. */
export interface TlsCredentials {
  cert: string;
  key: string;
}

/** Why TLS could not be set up (a file missing or unreadable, a certificate that is not one). */
export class TlsSetupError extends Error {
  override name = 'TlsSetupError';
}

/** How long a self-signed certificate is made for. */
const SELF_SIGNED_DAYS = 365;
/** A self-signed certificate this close to its end is made anew. */
const RENEW_BEFORE_MS = 7 * 24 * 3_600_000;

/** The names and addresses a self-signed certificate covers: loopback, the host name, the LAN. */
export function machineNames(lanAddresses: readonly string[]): string[] {
  return [...new Set(['localhost', hostname(), '127.0.0.1', '::1', ...lanAddresses])].filter(
    Boolean,
  );
}

/** The subject alternative names of a certificate, as plain names and (compressed) addresses. */
export function coveredNames(cert: X509Certificate): Set<string> {
  return new Set(
    (cert.subjectAltName ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const value = entry.replace(/^(DNS|IP Address):/, '');
        // OpenSSL spells IPv6 out in full (0:0:…:1); URL parsing compresses it (::1).
        return isIP(value) === 6 ? new URL(`http://[${value}]`).hostname.slice(1, -1) : value;
      }),
  );
}

/**
 * The credentials to serve with, or null for plain HTTP.
 * @param lanAddresses - the machine's non-loopback addresses (for a self-signed certificate)
 * @param now - the current time (ms), to renew an expiring self-signed certificate
 */
export async function loadTlsCredentials(
  setting: TlsSetting,
  dataDir: string,
  lanAddresses: readonly string[],
  now: number = Date.now(),
): Promise<TlsCredentials | null> {
  switch (setting.mode) {
    case 'off':
      return null;
    case 'files':
      return readPair(setting.certPath, setting.keyPath);
    case 'self-signed':
      return selfSigned(join(dataDir, 'tls'), machineNames(lanAddresses), now);
  }
}

function readPair(certPath: string, keyPath: string): TlsCredentials {
  let cert: string;
  let key: string;
  try {
    cert = readFileSync(certPath, 'utf8');
    key = readFileSync(keyPath, 'utf8');
  } catch (error) {
    throw new TlsSetupError(`Cannot read the TLS certificate or key: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    const parsed = new X509Certificate(cert);
    if (!parsed.checkPrivateKey(createPrivateKey(key))) {
      throw new TlsSetupError(
        `The key in ${keyPath} does not belong to the certificate in ${certPath}.`,
      );
    }
  } catch (error) {
    if (error instanceof TlsSetupError) throw error;
    throw new TlsSetupError(`${certPath} and ${keyPath} are not a PEM certificate and key.`, {
      cause: error,
    });
  }
  return { cert, key };
}

async function selfSigned(dir: string, names: string[], now: number): Promise<TlsCredentials> {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    const kept = readPair(certPath, keyPath);
    const cert = new X509Certificate(kept.cert);
    const covered = coveredNames(cert);
    const fresh = Date.parse(cert.validTo) - now > RENEW_BEFORE_MS;
    if (fresh && names.every((name) => covered.has(name))) return kept;
  }
  const notBeforeDate = new Date(now - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'Leadline (self-signed)' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + SELF_SIGNED_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((name) =>
          isIP(name) ? { type: 7, ip: name } : { type: 2, value: name },
        ),
      },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private };
}
