declare module 'geoip-country' {
  interface Lookup {
    country: string;
    name?: string;
  }
  export function lookup(ip: string): Lookup | null;
}
