/**
 * Which addresses a follower relays to (`INSTANCE_URLS`, `docs/deployment.md`, several
 * instances). The media leader writes the URL it is reached at into the `media_leader` row, and
 * every follower sends its browsers' logins, CSRF tokens and intake keys there: a follower
 * believes that URL only when the operator allowed it, so whoever can write one row cannot
 * point the install's traffic at a host of their choosing.
 *
 * An entry is a base URL (`https://10.0.0.5:3000`: that scheme, host and port) or an address
 * or CIDR range (`10.0.0.0/24`: any port, http or https, an IP-literal host only; a name never
 * matches a range, since its address is whatever DNS says when it is looked up). Unset, only
 * loopback addresses are allowed (instances on one machine); set, only what it lists (loopback
 * too only if listed, so a row naming `http://127.0.0.1:<port>` cannot reach a service of the
 * follower's own machine).
 */
import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from '../lib/loopback-host';

/** The addresses a follower may relay to. */
export interface AllowedInstances {
  /** Origins allowed as they are (`https://media-1.internal:3000`). */
  readonly origins: readonly string[];
  /** Address ranges allowed for IP-literal hosts. */
  readonly ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /**
   * Whether plain `http://` to another machine is allowed (embedded mode, or production with
   * `INSTANCE_NETWORK=private`); else a range allows `https://` only.
   */
  readonly plainHttp: boolean;
}

/** Why an entry of `INSTANCE_URLS` cannot be read, or null. */
export function instanceUrlEntryProblem(entry: string): string | null {
  if (ipaddr.isValid(entry) || ipaddr.isValidCIDR(entry)) return null;
  try {
    const url = new URL(entry);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not an http(s) URL';
    if (url.username || url.password || url.search || url.hash || !/^\/?$/.test(url.pathname)) {
      return 'a base URL has no user, path, query or fragment';
    }
    return null;
  } catch {
    return 'neither a URL nor an address or CIDR range';
  }
}

/** Parses `INSTANCE_URLS`' entries (each checked by {@link instanceUrlEntryProblem}). */
export function allowedInstancesOf(
  entries: readonly string[],
  options: { plainHttp: boolean } = { plainHttp: true },
): AllowedInstances {
  const origins: string[] = [];
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const entry of entries) {
    if (ipaddr.isValidCIDR(entry)) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else origins.push(new URL(entry).origin);
  }
  return { origins, ranges, plainHttp: options.plainHttp };
}

/** Whether `url` (a leader's base URL, as the `media_leader` row names it) may be relayed to. */
export function allowsInstanceUrl(allowed: AllowedInstances, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username || parsed.password) return false;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (allowed.origins.length === 0 && allowed.ranges.length === 0) return isLoopbackHost(host);
  if (parsed.protocol === 'http:' && !allowed.plainHttp && !isLoopbackHost(host)) return false;
  if (allowed.origins.includes(parsed.origin)) return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return allowed.ranges.some(
    ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
  );
}
