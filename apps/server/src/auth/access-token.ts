/**
 * Access tokens for the signalling gateway: JWTs shaped like Twilio access tokens
 * (header `cty: twilio-fpa;v=1`, `grants.identity`, `grants.voice`), HS256-signed.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { ACCESS_TOKEN_CONTENT_TYPE } from '@leadline/contracts';

/** The gateway identity of a user. */
export const identityOf = (userId: number): string => String(userId);

/**
 * A verified token: who it names, when it expires (seconds since the epoch), and the login
 * session it was issued to (`sessionTagOf`; tokens issued without one have none).
 */
export interface VerifiedToken {
  identity: string;
  expiresAt: number;
  session?: string;
}

/** Why a token was refused: `expired` (31205) or `invalid` (31204). */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
  constructor(
    readonly reason: 'expired' | 'invalid',
    options?: { cause?: unknown },
  ) {
    super(reason === 'expired' ? 'Access token expired.' : 'Access token invalid.', options);
  }
}

/** Issues and verifies access tokens. */
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly ttlSeconds: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  /**
   * A token naming the user, valid for the configured lifetime; `session` (the login's
   * `sessionTagOf`) ties it to that login: the gateway refuses it once the login ended.
   */
  async issue(userId: number, accountId: number, session?: string): Promise<string> {
    const iat = Math.floor(this.nowMs() / 1000);
    return new SignJWT({
      ...(session === undefined ? {} : { sid: session }),
      grants: {
        identity: identityOf(userId),
        voice: { incoming: { allow: true }, outgoing: { application_sid: `AP${accountId}` } },
      },
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', cty: ACCESS_TOKEN_CONTENT_TYPE })
      .setJti(`SK-${randomUUID()}`)
      .setIssuer('leadline')
      .setSubject(`AC${accountId}`)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .sign(this.key);
  }

  /** Verifies a token; throws `TokenRefusedError` when it is expired or not ours. */
  async verify(token: string): Promise<VerifiedToken> {
    try {
      const { payload } = await jwtVerify<{ grants?: { identity?: unknown }; sid?: unknown }>(
        token,
        this.key,
        {
          algorithms: ['HS256'],
          issuer: 'leadline',
          currentDate: new Date(this.nowMs()),
        },
      );
      const identity = payload.grants?.identity;
      const session = payload.sid;
      if (
        typeof identity !== 'string' ||
        !identity ||
        typeof payload.exp !== 'number' ||
        (session !== undefined && typeof session !== 'string')
      ) {
        throw new TokenRefusedError('invalid');
      }
      return { identity, expiresAt: payload.exp, ...(session === undefined ? {} : { session }) };
    } catch (error) {
      if (error instanceof TokenRefusedError) throw error;
      const expired = error instanceof joseErrors.JWTExpired;
      throw new TokenRefusedError(expired ? 'expired' : 'invalid', { cause: error });
    }
  }
}
