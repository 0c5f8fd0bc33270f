package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
)

// templateLockKey serialises template builds among all test binaries sharing
// a server (go test runs packages in parallel against one TEST_DATABASE_URL).
// Advisory locks are per database; all binaries lock in the URL's database.
var templateLockKey = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("github.com/sous-app/sous/internal/pg/pgtest template"))
	return int64(h.Sum64())
}()

// ensureTemplate returns the name of a template database migrated with fsys,
// building it unless a database for exactly these migration files exists
// already (built by an earlier run or a concurrent binary). The name carries a
// hash of the files, so editing a migration yields a new template instead of
// tests running against a stale schema.
func ensureTemplate(ctx context.Context, admin *pgxpool.Pool, adminURL string, fsys fs.FS) (string, error) {
	sum, err := hashFS(fsys)
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	name := "sous_tmpl_" + sum[:16]
	if ok, err := databaseExists(ctx, admin, name); err != nil || ok {
		return name, err
	}

	// A transaction-scoped lock is released by the server even if this
	// process dies mid-build.
	tx, err := admin.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("lock template build: %w", err)
	}
	if ok, err := databaseExists(ctx, admin, name); err != nil || ok {
		return name, err
	}

	// Build under a temporary name and rename when complete, so that the
	// final name existing always means a finished template; a build killed
	// halfway is dropped by the next builder.
	building := name + "_building"
	for _, stmt := range []string{
		fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", ident(building)),
		fmt.Sprintf("CREATE DATABASE %s", ident(building)),
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return "", fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if fsys != nil {
		if err := pg.Migrate(ctx, withDatabase(adminURL, building), fsys); err != nil {
			return "", fmt.Errorf("migrate template: %w", err)
		}
	}
	for _, stmt := range []string{
		fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", ident(building), ident(name)),
		// Nobody may connect to the template, or CREATE DATABASE ... TEMPLATE
		// would fail with "source database is being accessed by other users".
		fmt.Sprintf("ALTER DATABASE %s WITH IS_TEMPLATE true ALLOW_CONNECTIONS false", ident(name)),
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return "", fmt.Errorf("%s: %w", stmt, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return "", err
	}
	return name, nil
}

func databaseExists(ctx context.Context, admin *pgxpool.Pool, name string) (bool, error) {
	var ok bool
	err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up database %s: %w", name, err)
	}
	return ok, nil
}

// hashFS digests every file's path and contents; nil hashes as empty.
func hashFS(fsys fs.FS) (string, error) {
	h := sha256.New()
	if fsys != nil {
		// WalkDir visits in lexical order, so the digest is deterministic.
		err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(fsys, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// withDatabase points a connection string (URL or keyword/value DSN) at
// another database on the same server.
func withDatabase(connString, database string) string {
	if strings.Contains(connString, "://") {
		if u, err := url.Parse(connString); err == nil {
			u.Path = "/" + database
			u.RawPath = ""
			return u.String()
		}
	}
	// In a keyword/value string the last occurrence of a key wins.
	return connString + " dbname='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(database) + "'"
}
