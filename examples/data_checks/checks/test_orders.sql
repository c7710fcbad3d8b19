-- Each statement is one test: it passes when it returns no rows.

-- name: amounts_are_positive
SELECT id, amount FROM shop.orders WHERE amount <= 0;

-- name: no_orders_from_the_future
SELECT id, ordered_at FROM shop.orders WHERE ordered_at > current_timestamp() + INTERVAL 1 HOUR;

-- name: every_customer_known
SELECT o.id, o.customer_id
FROM shop.orders o LEFT JOIN shop.customers c ON o.customer_id = c.id
WHERE c.id IS NULL;

-- name: three_countries
-- expect: 3 rows
SELECT DISTINCT country FROM shop.customers;

-- name: no_big_cancellations
-- mark: nightly
SELECT * FROM shop.orders WHERE status = 'cancelled' AND amount > 100;
