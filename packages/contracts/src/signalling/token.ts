/**
 * The access token's shape: a JWT like a Twilio access token (header `cty: twilio-fpa;v=1`),
 * signed by the server and verified by the gateway.
 */
export const ACCESS_TOKEN_CONTENT_TYPE = 'twilio-fpa;v=1';

/** Claims of an access token. `grants.identity` names the user on the gateway. */
export interface AccessTokenClaims {
  jti: string;
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  grants: {
    identity: string;
    voice?: { incoming?: { allow?: boolean }; outgoing?: { application_sid?: string } };
  };
}
