-- Inventory database of the three warehouses. Costs are integer cents.
CREATE TABLE warehouses (
    id   INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL
);
CREATE TABLE products (
    id              INTEGER PRIMARY KEY,
    sku             TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    category        TEXT NOT NULL,
    unit_cost_cents INTEGER NOT NULL,
    reorder_level   INTEGER NOT NULL,
    discontinued    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE stock (
    product_id   INTEGER NOT NULL REFERENCES products(id),
    warehouse_id INTEGER NOT NULL REFERENCES warehouses(id),
    quantity     INTEGER NOT NULL,
    PRIMARY KEY (product_id, warehouse_id)
);
