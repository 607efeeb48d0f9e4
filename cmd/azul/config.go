package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// config is what azul keeps between runs: the server, the player's
// token, and the account's language and time zone as last read from the
// server (so that azul speaks them without asking each time). The file
// holds "key = value" lines; # starts a comment.
type config struct {
	Server   string
	Token    string
	Language string
	TimeZone string
}

// defaultServer is used when neither the file, AZUL_SERVER nor --server
// names one.
const defaultServer = "http://localhost:8080"

// configPath is $XDG_CONFIG_HOME/azul/config, or ~/.config/azul/config.
func configPath(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "azul", "config"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: give --config")
	}
	return filepath.Join(home, ".config", "azul", "config"), nil
}

// loadConfig reads the file; a missing file is an empty config.
func loadConfig(path string) (config, error) {
	var cfg config
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read the configuration: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return cfg, fmt.Errorf("%s:%d: expected key = value", path, n)
		}
		switch key, value = strings.TrimSpace(key), strings.TrimSpace(value); key {
		case "server":
			cfg.Server = value
		case "token":
			cfg.Token = value
		case "language":
			cfg.Language = value
		case "time_zone":
			cfg.TimeZone = value
		default:
			return cfg, fmt.Errorf("%s:%d: unknown key %q (server, token, language, time_zone)", path, n, key)
		}
	}
	if err := sc.Err(); err != nil {
		return cfg, fmt.Errorf("read the configuration: %w", err)
	}
	return cfg, nil
}

// saveConfig writes the file readable by its owner only (it holds a
// token), through a temporary file so a crash leaves the old one.
func saveConfig(path string, cfg config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the configuration directory: %w", err)
	}
	body := fmt.Sprintf("# azul configuration (written by azul login / azul register / azul account)\nserver = %s\ntoken = %s\n", cfg.Server, cfg.Token)
	// The account's language and zone belong to its token.
	if cfg.Token != "" && cfg.Language != "" {
		body += fmt.Sprintf("language = %s\ntime_zone = %s\n", cfg.Language, cfg.TimeZone)
	}
	if err := writePrivate(path, []byte(body)); err != nil {
		return fmt.Errorf("write the configuration: %w", err)
	}
	return nil
}

// writePrivate writes a file readable by its owner only, through a
// temporary file, so that a crash leaves the old one whole.
func writePrivate(path string, body []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
