package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/azuld/azuld/mail/dkim"
)

// dkimKeygen is "azuld dkim keygen": it writes a new signing key and
// prints the DNS record to publish before azuld signs with it.
func (a *process) dkimKeygen(args []string) error {
	if len(args) == 0 || args[0] != "keygen" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(a.stdout, "Usage: azuld dkim keygen --out <file> [--mail-domain d] [--dkim-selector s]\n")
			return errHelp
		}
		fmt.Fprint(a.stderr, "azuld dkim: the only subcommand is \"keygen\"\n")
		return errUsage
	}
	fs := flag.NewFlagSet("dkim keygen", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	out := fs.String("out", "", "file the private key is written to, in PEM (it must not exist yet); then set AZUL_DKIM_KEY to it")
	domain := fs.String("mail-domain", envOr(a.getenv, "AZUL_MAIL_DOMAIN", "localhost"), "mail domain the mails are signed for (AZUL_MAIL_DOMAIN)")
	selector := fs.String("dkim-selector", envOr(a.getenv, "AZUL_DKIM_SELECTOR", "azuld"), "selector of the key's DNS record (AZUL_DKIM_SELECTOR)")
	if len(args) > 1 && (args[1] == "-h" || args[1] == "--help" || args[1] == "-help") {
		fs.SetOutput(a.stdout)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprint(a.stderr, "azuld dkim keygen: give the key's file with --out <file>\n")
		return errUsage
	}
	pemBytes, key, err := dkim.GenerateKey()
	if err != nil {
		return err
	}
	signer, err := dkim.New(strings.ToLower(strings.TrimSpace(*domain)), *selector, key)
	if err != nil {
		return err
	}
	record, err := signer.Record()
	if err != nil {
		return err
	}
	// O_EXCL: an existing key, whose record is published, is never
	// overwritten by mistake.
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write the key: %w", err)
	}
	if _, err := f.Write(pemBytes); err != nil {
		f.Close()
		return fmt.Errorf("write the key: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the key: %w", err)
	}
	fmt.Fprintf(a.stdout, "Wrote the private key to %s (keep it like a password).\n\n", *out)
	fmt.Fprintf(a.stdout, "Publish this TXT record in DNS:\n\n%s. IN TXT %s\n\n", signer.RecordName(), txtStrings(record))
	fmt.Fprintf(a.stdout, "The record's value, in one piece (for DNS providers' web forms):\n\n%s\n\n", record)
	fmt.Fprintf(a.stdout, "Then start azuld with AZUL_DKIM_KEY=%s AZUL_DKIM_SELECTOR=%s AZUL_MAIL_DOMAIN=%s\n", *out, *selector, *domain)
	return nil
}

// txtStrings splits a TXT value into quoted strings of at most 255
// characters, as a zone file needs (an RSA key's record is longer).
func txtStrings(v string) string {
	var parts []string
	for len(v) > 255 {
		parts = append(parts, `"`+v[:255]+`"`)
		v = v[255:]
	}
	parts = append(parts, `"`+v+`"`)
	return "( " + strings.Join(parts, " ") + " )"
}

func envOr(getenv func(string) string, name, def string) string {
	if v, ok := lookupEnv(getenv, name); ok {
		return v
	}
	return def
}
