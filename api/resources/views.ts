/** Row shapes as the store returns them, and the representations clients see. */

import { isCancellable } from './order-states.js';

/** A users row. */
export interface UserRow {
  id: string;
  seq: string;
  name: string;
  email: string;
  role: 'user' | 'admin';
  address: string | null;
  phone: string | null;
  profile: Record<string, unknown>;
  settings: Record<string, unknown>;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** An orders row. */
export interface OrderRow {
  id: string;
  seq: string;
  user_id: string;
  status: string;
  total_price_cents: string | number;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** An order_items row. */
export interface OrderItemRow {
  id: string;
  order_id: string;
  position: number;
  product_name: string;
  quantity: number;
  unit_price_cents: string | number;
}

/** A link object of `_links`. */
export interface Link {
  href: string;
  method?: string;
}

/** A user as clients see it. */
export interface UserView {
  id: string;
  name: string;
  email: string;
  role: 'user' | 'admin';
  address: string | null;
  phone: string | null;
  profile: Record<string, unknown>;
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  _links: { self: Link; orders: Link };
}

/** An order item as clients see it; prices are decimal currency units. */
export interface OrderItemView {
  id: string;
  productName: string;
  quantity: number;
  unitPrice: number;
}

/** An order as clients see it; `_links.cancel` is present only while the order is PENDING. */
export interface OrderView {
  id: string;
  userId: string;
  status: string;
  totalPrice: number;
  items: OrderItemView[];
  createdAt: string;
  updatedAt: string;
  _links: { self: Link; items: Link; user: Link; cancel?: Link };
}

/** A value with the version that backs its ETag and the If-Match check. */
export interface Versioned<T> {
  data: T;
  version: number;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** Cents (integer) to currency units, exact for every value the schema admits. */
export function toCurrency(cents: string | number): number {
  return Number(cents) / 100;
}

/** Currency units to integer cents (the schema already allows at most two decimals). */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

/** The public representation of a user row. */
export function toUserView(row: UserRow, baseUrl: string): UserView {
  const self = `${baseUrl}/users/${row.id}`;
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    address: row.address,
    phone: row.phone,
    profile: row.profile,
    settings: row.settings,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    _links: { self: { href: self }, orders: { href: `${self}/orders` } },
  };
}

/** The public representation of an order item row. */
export function toOrderItemView(row: OrderItemRow): OrderItemView {
  return {
    id: row.id,
    productName: row.product_name,
    quantity: row.quantity,
    unitPrice: toCurrency(row.unit_price_cents),
  };
}

/** The public representation of an order with its items and links. */
export function toOrderView(row: OrderRow, items: readonly OrderItemRow[], baseUrl: string): OrderView {
  const self = `${baseUrl}/orders/${row.id}`;
  const links: OrderView['_links'] = {
    self: { href: self },
    items: { href: `${self}/items` },
    user: { href: `${baseUrl}/users/${row.user_id}` },
  };
  if (isCancellable(row.status)) links.cancel = { href: `${self}/cancel`, method: 'POST' };
  return {
    id: row.id,
    userId: row.user_id,
    status: row.status,
    totalPrice: toCurrency(row.total_price_cents),
    items: items.map(toOrderItemView),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    _links: links,
  };
}
