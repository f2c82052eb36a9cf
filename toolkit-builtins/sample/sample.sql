-- The sample database of the toolkit playground: a small shop.
-- Real-looking but invented data: some NULLs, BOOLEAN columns, long and multi-line text, unicode.
-- Built by builtins::sample::create_sample_database; keep it one transaction.

BEGIN;

CREATE TABLE customers (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    email      TEXT UNIQUE,
    country    TEXT NOT NULL,
    city       TEXT,
    is_active  BOOLEAN NOT NULL DEFAULT 1,
    notes      TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE products (
    id          INTEGER PRIMARY KEY,
    sku         TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    category    TEXT NOT NULL,
    price       REAL NOT NULL CHECK (price >= 0),
    in_stock    BOOLEAN NOT NULL DEFAULT 1,
    description TEXT
);

CREATE TABLE orders (
    id          INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    ordered_at  TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')),
    shipped     BOOLEAN NOT NULL DEFAULT 0,
    note        TEXT
);

CREATE TABLE order_items (
    order_id   INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
    product_id INTEGER NOT NULL REFERENCES products(id),
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, product_id)
);

CREATE INDEX idx_orders_customer ON orders(customer_id);
CREATE INDEX idx_orders_status ON orders(status, ordered_at);
CREATE INDEX idx_order_items_product ON order_items(product_id);

CREATE VIEW order_totals AS
    SELECT orders.id AS order_id,
           customers.name AS customer,
           orders.status AS status,
           round(sum(order_items.quantity * order_items.unit_price), 2) AS total
    FROM orders
    JOIN customers ON customers.id = orders.customer_id
    JOIN order_items ON order_items.order_id = orders.id
    GROUP BY orders.id
    ORDER BY orders.id;

INSERT INTO customers (id, name, email, country, city, is_active, notes, created_at) VALUES
    (1, 'Ada Lovelace', 'ada@example.com', 'United Kingdom', 'London', 1, 'Prefers e-mail. Pays on time.', '2024-01-15'),
    (2, 'José Álvarez', 'jose.alvarez@example.es', 'Spain', 'Sevilla', 1, NULL, '2024-02-03'),
    (3, 'Zoë Müller', 'zoe@example.de', 'Germany', 'Köln', 1, 'Asked for invoices
in German.	Ships to the office.', '2024-02-20'),
    (4, '李伟', 'li.wei@example.cn', 'China', '上海', 1, NULL, '2024-03-08'),
    (5, 'Søren Kierkegaard', NULL, 'Denmark', 'København', 0, 'No e-mail on file; call before shipping.', '2024-03-30'),
    (6, 'Amélie Poulain', 'amelie@example.fr', 'France', 'Paris', 1, NULL, '2024-04-12'),
    (7, 'Grace Hopper', 'grace@example.com', 'United States', 'Arlington', 1, 'Bulk buyer: mostly cables and adapters.', '2024-05-01'),
    (8, 'Олена Коваленко', 'olena@example.ua', 'Ukraine', 'Київ', 1, NULL, '2024-05-19'),
    (9, 'Kwame Mensah', 'kwame@example.gh', 'Ghana', NULL, 1, NULL, '2024-06-07'),
    (10, 'Marie Curie', 'marie@example.fr', 'France', 'Paris', 0, 'Account closed at the customer''s request.', '2024-06-25'),
    (11, 'Hiroshi Tanaka', 'hiroshi@example.jp', 'Japan', '東京', 1, NULL, '2024-07-14'),
    (12, 'Ana Souza', 'ana.souza@example.br', 'Brazil', 'São Paulo', 1, 'Wants 100% recycled packaging.', '2024-08-02');

INSERT INTO products (id, sku, name, category, price, in_stock, description) VALUES
    (1, 'KB-001', 'Mechanical keyboard', 'peripherals', 89.9, 1, 'Tenkeyless mechanical keyboard with hot-swappable switches.'),
    (2, 'MS-002', 'Wireless mouse', 'peripherals', 24.5, 1, 'Quiet clicks, two-year battery life.'),
    (3, 'MN-003', '27" monitor', 'displays', 249.0, 1, 'A 27-inch IPS panel at 2560 × 1440, 75 Hz, with a stand that tilts, swivels and rises. The box holds the monitor, the stand, a power cable, a DisplayPort cable and a short guide. Colour-calibrated at the factory: each unit ships with its own calibration report, so what you see on screen is what gets printed, within a ΔE of 2. Wall-mountable with a 100 × 100 VESA plate (not included).'),
    (4, 'CB-004', 'USB-C cable, 2 m', 'cables', 9.99, 1, 'Braided, 100 W power delivery.'),
    (5, 'CB-005', 'HDMI cable, 1.5 m', 'cables', 7.5, 0, NULL),
    (6, 'AD-006', 'USB-C to HDMI adapter', 'adapters', 19.0, 1, 'Supports 4K at 60 Hz.'),
    (7, 'HS-007', 'Headset', 'audio', 59.0, 1, 'Closed-back headset
with a detachable microphone.'),
    (8, 'LS-008', 'Laptop stand', 'accessories', 34.0, 0, 'Aluminium, folds flat.'),
    (9, 'WC-009', 'Webcam', 'peripherals', 45.0, 1, '1080p, privacy shutter, 100% plug_and_play.'),
    (10, 'GC-010', 'Gift card', 'gifts', 25.0, 1, NULL);

INSERT INTO orders (id, customer_id, ordered_at, status, shipped, note) VALUES
    (1, 1, '2024-09-01', 'delivered', 1, NULL),
    (2, 2, '2024-09-03', 'delivered', 1, 'Leave with the neighbour.'),
    (3, 3, '2024-09-05', 'shipped', 1, NULL),
    (4, 1, '2024-09-10', 'paid', 0, NULL),
    (5, 4, '2024-09-12', 'delivered', 1, NULL),
    (6, 7, '2024-09-15', 'delivered', 1, 'Invoice to the procurement office.'),
    (7, 7, '2024-09-20', 'shipped', 1, NULL),
    (8, 6, '2024-09-22', 'cancelled', 0, 'Customer found it cheaper elsewhere.'),
    (9, 8, '2024-09-25', 'paid', 0, NULL),
    (10, 11, '2024-10-01', 'pending', 0, NULL),
    (11, 12, '2024-10-02', 'paid', 0, 'Gift — wrap it, please.'),
    (12, 9, '2024-10-04', 'delivered', 1, NULL),
    (13, 2, '2024-10-06', 'pending', 0, NULL),
    (14, 7, '2024-10-08', 'paid', 0, NULL),
    (15, 3, '2024-10-09', 'delivered', 1, NULL),
    (16, 5, '2024-10-11', 'cancelled', 0, NULL),
    (17, 11, '2024-10-13', 'shipped', 1, NULL),
    (18, 1, '2024-10-15', 'pending', 0, NULL),
    (19, 12, '2024-10-17', 'delivered', 1, NULL),
    (20, 6, '2024-10-20', 'paid', 0, NULL);

INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES
    (1, 1, 1, 89.9),
    (1, 2, 1, 24.5),
    (2, 3, 1, 249.0),
    (2, 4, 2, 9.99),
    (3, 7, 1, 59.0),
    (4, 6, 1, 19.0),
    (4, 4, 1, 9.99),
    (5, 3, 2, 249.0),
    (5, 8, 2, 34.0),
    (6, 4, 10, 9.99),
    (6, 5, 10, 7.5),
    (6, 6, 5, 19.0),
    (7, 4, 20, 9.49),
    (7, 6, 10, 18.5),
    (8, 9, 1, 45.0),
    (9, 1, 1, 89.9),
    (9, 7, 1, 59.0),
    (10, 10, 2, 25.0),
    (11, 10, 4, 25.0),
    (11, 2, 1, 24.5),
    (12, 9, 1, 45.0),
    (12, 2, 1, 24.5),
    (13, 8, 1, 34.0),
    (14, 4, 15, 9.99),
    (14, 6, 3, 19.0),
    (15, 1, 1, 89.9),
    (15, 9, 1, 45.0),
    (16, 3, 1, 249.0),
    (17, 7, 2, 59.0),
    (17, 2, 2, 24.5),
    (18, 8, 1, 34.0),
    (18, 4, 3, 9.99),
    (19, 5, 2, 7.5),
    (19, 6, 1, 19.0),
    (19, 2, 1, 24.5),
    (20, 3, 1, 249.0),
    (20, 1, 1, 89.9),
    (20, 7, 1, 59.0);

COMMIT;
