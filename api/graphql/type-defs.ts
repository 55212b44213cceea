/** The GraphQL schema as SDL: the contract between clients and the API (resolvers in `resolvers/`). */
export const TYPE_DEFS = /* GraphQL */ `
  "Who a user is: an ordinary user sees and changes only their own data, an admin everything."
  enum Role {
    user
    admin
  }

  "Where an order is in its life; moves follow the order state machine of the REST API."
  enum OrderStatus {
    PENDING
    PAID
    SHIPPED
    DELIVERED
    CANCELLED
  }

  "Any JSON value (the free-form profile and settings of a user)."
  scalar JSON

  "A link as in REST's _links: the URI, and the HTTP method when it is an action."
  type Link {
    href: String!
    method: String
  }

  type UserLinks {
    self: Link!
    orders: Link!
  }

  "The links of an order; cancel is present only while the order is PENDING."
  type OrderLinks {
    self: Link!
    items: Link!
    user: Link!
    cancel: Link
  }

  type User {
    id: ID!
    name: String!
    email: String!
    role: Role!
    address: String
    phone: String
    profile: JSON!
    settings: JSON!
    createdAt: String!
    updatedAt: String!
    _links: UserLinks!
    "The REST cursor of this user: pass it as users(after:) for the page after it."
    cursor: String!
    "The user's orders oldest first: the first n (after a cursor), or the last n (most recent)."
    orders(last: Int, first: Int, after: String): [Order!]!
  }

  type OrderItem {
    id: ID!
    productName: String!
    quantity: Int!
    unitPrice: Float!
  }

  type Order {
    id: ID!
    userId: ID!
    status: OrderStatus!
    "In currency units; computed by the server from the items."
    totalPrice: Float!
    items: [OrderItem!]!
    user: User!
    createdAt: String!
    updatedAt: String!
    _links: OrderLinks!
    "The REST cursor of this order: pass it as orders(after:) for the orders after it."
    cursor: String!
  }

  type Query {
    "One user: the caller themself, or anyone for an admin."
    user(id: ID!): User
    "Every user a page at a time, or those whose name or e-mail contains search (admins only)."
    users(first: Int, after: String, search: String): [User!]!
    order(id: ID!): Order
    "The caller."
    me: User
  }

  input OrderItemInput {
    productName: String!
    quantity: Int!
    unitPrice: Float!
  }

  input CreateOrderInput {
    "Only an admin may place an order for another user; the caller by default."
    userId: ID
    items: [OrderItemInput!]!
  }

  input UpdateOrderInput {
    status: OrderStatus!
  }

  type Mutation {
    createOrder(input: CreateOrderInput!): Order!
    "Cancels a PENDING order."
    cancelOrder(id: ID!): Order!
    "A state change along the order state machine."
    updateOrder(id: ID!, input: UpdateOrderInput!): Order!
    "Deletes an order; returns its id."
    deleteOrder(id: ID!): ID!
  }

  type Subscription {
    "Orders placed from now on: the caller's own, or (admins) everyone's or userId's."
    orderCreated(userId: ID): Order!
    "Status changes from now on, optionally of one user's or one order's orders."
    orderStatusChanged(userId: ID, orderId: ID): Order!
  }
`;
