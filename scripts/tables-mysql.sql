-- Pergola on MySQL 8 or MariaDB: the database that holds the rows of
-- tables, and the only user that reaches it. The SQL a model writes runs
-- through this user, so it must have rights on this database and nothing
-- else: Pergola checks that at start and refuses to start otherwise.
--
-- Run it once as an administrator, after replacing CHANGE-ME (and, if you
-- like, the names and the host '%'):
--
--   mysql -uroot -p < scripts/tables-mysql.sql
--
-- then start every Pergola process with
--
--   PERGOLA_TABLES_DSN='pergola_rows:CHANGE-ME@tcp(db:3306)/pergola_rows'
--
-- beside PERGOLA_DB_DSN, which names the platform's own database and user.

CREATE DATABASE IF NOT EXISTS pergola_rows CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

CREATE USER IF NOT EXISTS 'pergola_rows'@'%' IDENTIFIED BY 'CHANGE-ME';

GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX ON pergola_rows.* TO 'pergola_rows'@'%';
