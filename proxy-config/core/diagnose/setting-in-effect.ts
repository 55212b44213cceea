import type { EffectiveSetting } from '../nginx-config/location-settings.js';
import { childrenNamed, locationMatch, type ScopeChain } from '../nginx-config/query.js';
import type { NginxDirective } from '../nginx-config/types.js';

/** Where one setting of a location comes from, and where it can be changed. */
export interface SettingInEffect {
  name: string;
  /** As written in the directive in effect, or nginx's default. */
  value: string;
  /** `FILE:LINE` of the directive in effect; null when nginx's default applies. */
  setAt: string | null;
  /** The block that holds it (`http`, `server`, `location /api`); null for the default. */
  setIn: string | null;
  /** Whether it was set in an outer block and inherited by the location. */
  inherited: boolean;
  /** `FILE:LINE` of the location, its server and http block: the places it could be set. */
  locationAt: string;
  serverAt: string | null;
  httpAt: string | null;
}

const at = (block: NginxDirective) => `${block.file}:${block.line}`;

function blockName(block: NginxDirective): string {
  if (block.name !== 'location') return block.name;
  const { modifier, path } = locationMatch(block);
  return `location ${modifier ? `${modifier} ` : ''}${path}`;
}

/** The setting `name` of the location at the end of `chain`: the directive in effect, or nginx's default. */
export function settingInEffect<T>(
  chain: ScopeChain,
  name: string,
  setting: EffectiveSetting<T>,
): SettingInEffect {
  const location = chain.at(-1)!;
  const holder = setting.setBy
    ? [...chain].reverse().find((block) => childrenNamed(block, name).includes(setting.setBy!))
    : undefined;
  const server = chain.find((block) => block.name === 'server');
  const http = chain.find((block) => block.name === 'http');
  return {
    name,
    value: setting.value,
    setAt: setting.setBy ? at(setting.setBy) : null,
    setIn: holder ? blockName(holder) : null,
    inherited: holder !== undefined && holder !== location,
    locationAt: at(location),
    serverAt: server ? at(server) : null,
    httpAt: http ? at(http) : null,
  };
}

/**
 * One evidence line naming the directive in effect for a location, where it is written, and where to
 * change it: there, or inside the location for it alone; for nginx's default, the blocks that can set it.
 * `shown` is the value as the finding reads it (`1024 bytes (1.0 KiB)`, `60s`).
 */
export function describeSettingInEffect(s: SettingInEffect, shown: string, where: string): string {
  if (s.setAt === null) {
    const places = [
      `inside the location (${s.locationAt}) for it alone`,
      ...(s.serverAt ? [`in its server (${s.serverAt})`] : []),
      ...(s.httpAt ? [`in http (${s.httpAt})`] : []),
    ];
    return `config: ${s.name} not set: nginx's default ${s.value} (${shown}) applies to ${where}; set it ${places.join(', or ')}`;
  }
  const change = s.inherited
    ? `change it at ${s.setAt} (for all of ${s.setIn}), or set it inside the location (${s.locationAt}) for it alone`
    : `change it at ${s.setAt}`;
  return `config: ${s.name} ${s.value} (${shown}) at ${s.setAt}, in ${s.setIn}${s.inherited ? ', inherited' : ''}: in effect for ${where}; ${change}`;
}
