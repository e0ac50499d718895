/** Whether a host names this machine only. */
import ipaddr from 'ipaddr.js';

/** Whether `host` (a name, an IPv4 or IPv6 address, bracketed or not) is this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'loopback';
}
