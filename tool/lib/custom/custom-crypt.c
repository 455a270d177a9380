// SPDX-License-Identifier: MIT
/*
 * Passwords hashed as the image's login checks them, with libxcrypt
 * (Debian 12: libcrypt-dev 1:4.4.33-2, crypt.h; crypt_gensalt(3),
 * crypt(5)). The password is never logged and never put in a message;
 * libxcrypt's working memory, which held it, is cleared before it is freed.
 */
#include <crypt.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "custom/custom.h"

/*
 * pam_unix's hashing options (pam_unix(8), Linux-PAM 1.5.2 in Debian 12);
 * the last one on the line is the one it uses, as each clears the others.
 * sha256, md5, bigcrypt and blowfish are hashes the image can check but
 * this file does not make: they come out as SHA-512, which every libcrypt
 * reads.
 */
static int pam_unix_method(const char *opt)
{
	if (!strcmp(opt, "yescrypt") || !strcmp(opt, "gost_yescrypt"))
		return IMGP_CRYPT_YESCRYPT;
	if (!strcmp(opt, "sha512") || !strcmp(opt, "sha256") || !strcmp(opt, "md5") ||
	    !strcmp(opt, "bigcrypt") || !strcmp(opt, "blowfish"))
		return IMGP_CRYPT_SHA512;
	return -1;
}

/*
 * The next token of a pam.d line: a word, or a "[...]" control (which may
 * hold blanks); NULL at the end of the line.
 */
static const char *pam_token(const char **p, const char *end, size_t *len)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end) {
		*p = end;
		return NULL;
	}
	if (*s == '[') {
		const char *close = memchr(s, ']', (size_t)(end - s));

		*len = close ? (size_t)(close + 1 - s) : (size_t)(end - s);
	} else {
		*len = 0;
		while (s + *len < end && s[*len] != ' ' && s[*len] != '\t')
			(*len)++;
	}
	*p = s + *len;
	return s;
}

/* The method pam_unix's password line of common-password names; -1: none. */
static int pam_method(const char *text)
{
	const char *p = text, *end = text + strlen(text);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *hash = memchr(p, '#', (size_t)(le - p));
		const char *tok, *lp = p;
		size_t len;
		int m = -1;

		p = nl ? nl + 1 : end;
		if (hash)
			le = hash;
		tok = pam_token(&lp, le, &len);
		if (!tok || !((len == 8 && !memcmp(tok, "password", 8)) ||
			      (len == 9 && !memcmp(tok, "-password", 9))))
			continue;
		if (!pam_token(&lp, le, &len))      /* control */
			continue;
		tok = pam_token(&lp, le, &len);     /* module, maybe with a path */
		if (!tok || len < 11 || memcmp(tok + len - 11, "pam_unix.so", 11) ||
		    (len > 11 && tok[len - 12] != '/'))
			continue;
		while ((tok = pam_token(&lp, le, &len))) {
			char opt[32];
			int om;

			if (len >= sizeof(opt))
				continue;
			memcpy(opt, tok, len);
			opt[len] = '\0';
			om = pam_unix_method(opt);
			if (om >= 0)
				m = om;
		}
		if (m >= 0)
			return m;
	}
	return -1;
}

enum imgp_crypt_method imgp_crypt_method_of_(const char *common_password,
					    const char *login_defs)
{
	char v[32];
	int m = common_password ? pam_method(common_password) : -1;

	if (m >= 0)
		return (enum imgp_crypt_method)m;
	/* pam_unix(8): without an option, ENCRYPT_METHOD from login.defs */
	if (login_defs && imgp_custom_logindefs_get_(login_defs, strlen(login_defs),
						    "ENCRYPT_METHOD", v, sizeof(v)) &&
	    !strcasecmp(v, "YESCRYPT"))
		return IMGP_CRYPT_YESCRYPT;
	return IMGP_CRYPT_SHA512;
}

/* crypt_rn of phrase with setting into a fresh buffer that is cleared after; NULL on failure. */
static char *crypt_dup(const char *phrase, const char *setting)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char *r, *out = NULL;

	if (!cd)
		return NULL;
	r = crypt_rn(phrase, setting, cd, (int)sizeof(*cd));
	/* libxcrypt fails with a text starting with '*' or NULL */
	if (r && r[0] != '*')
		out = strdup(r);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return out;
}

int imgp_password_hash_(const char *password, enum imgp_crypt_method m, char **out)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	/*
	 * count 0 is each method's default cost (yescrypt 5, "j9T", as
	 * Debian's passwd makes it; SHA-512 5000 rounds); rbytes NULL makes
	 * libxcrypt take the salt from the OS's random source (getentropy).
	 */
	const char *prefix = m == IMGP_CRYPT_YESCRYPT ? "$y$" : "$6$";

	*out = NULL;
	if (!password || !*password)
		return imgp_fail(EINVAL, "an empty password");
	if (!crypt_gensalt_rn(prefix, 0, NULL, 0, setting, (int)sizeof(setting)))
		return imgp_fail(errno ? errno : EINVAL, "libcrypt makes no %s salt: %s",
				 m == IMGP_CRYPT_YESCRYPT ? "yescrypt" : "SHA-512",
				 strerror(errno));
	*out = crypt_dup(password, setting);
	if (!*out)
		return imgp_fail(errno == ENOMEM ? ENOMEM : EINVAL,
				 "libcrypt could not hash the password with %s",
				 m == IMGP_CRYPT_YESCRYPT ? "yescrypt" : "SHA-512");
	return 0;
}

bool imgp_password_matches_(const char *password, const char *hash)
{
	char *again;
	bool same;

	/* A locked ("!") or empty field matches nothing; the hash is its own salt. */
	if (!hash || hash[0] != '$')
		return false;
	again = crypt_dup(password, hash);
	same = again && strcmp(again, hash) == 0;
	if (again) {
		explicit_bzero(again, strlen(again));
		free(again);
	}
	return same;
}

/* crypt(5)'s hash alphabet: the length of its run at s. */
static size_t crypt_b64_span(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '.' || s[n] == '/')
		n++;
	return n;
}

/*
 * The part of a SHA-crypt hash after "$5$" or "$6$", as crypt(5)
 * (libxcrypt 4.4.33) writes its format: an optional "rounds=N$" (N
 * 1000 to 999,999,999, no leading zero), a salt of 1 to 16 characters
 * other than '$', ':' and a newline (nor, here, any control character),
 * '$', the hash.
 */
static bool crypt_sha_ok(const char *p, size_t hash_len)
{
	size_t n;

	if (!strncmp(p, "rounds=", 7)) {
		unsigned long r = 0;

		p += 7;
		for (n = 0; p[n] >= '0' && p[n] <= '9' && n < 10; n++)
			r = r * 10 + (unsigned long)(p[n] - '0');
		if (!n || p[0] == '0' || p[n] != '$' || r < 1000 || r > 999999999)
			return false;
		p += n + 1;
	}
	for (n = 0; p[n] && p[n] != '$'; n++)
		if (p[n] == ':' || (unsigned char)p[n] < 0x20 || p[n] == 0x7f)
			return false;
	if (!n || n > 16 || p[n] != '$')
		return false;
	p += n + 1;
	return crypt_b64_span(p) == hash_len && !p[hash_len];
}

/*
 * After "$y$" (crypt(5)): the parameters, '$', a salt of up to 86
 * characters, '$', a 43-character hash, all in crypt's alphabet.
 */
static bool crypt_yescrypt_ok(const char *p)
{
	size_t n = crypt_b64_span(p);

	if (!n || p[n] != '$')
		return false;
	p += n + 1;
	n = crypt_b64_span(p);
	if (n > 86 || p[n] != '$')
		return false;
	p += n + 1;
	return crypt_b64_span(p) == 43 && !p[43];
}

int imgp_crypt_hash_check_(const char *hash)
{
	size_t len = hash ? strlen(hash) : 0;
	bool ok;
	const char *name;
	int cs;

	/* the text is never quoted: it may be a password given in the wrong place */
	if (len >= CRYPT_OUTPUT_SIZE)
		return imgp_fail(EINVAL, "a crypt hash of %zu characters: too long", len);
	if (len && !strncmp(hash, "$y$", 3)) {
		name = "yescrypt";
		ok = crypt_yescrypt_ok(hash + 3);
	} else if (len && !strncmp(hash, "$6$", 3)) {
		name = "SHA-512";
		ok = crypt_sha_ok(hash + 3, 86);
	} else if (len && !strncmp(hash, "$5$", 3)) {
		name = "SHA-256";
		ok = crypt_sha_ok(hash + 3, 43);
	} else {
		return imgp_fail(EINVAL, "not a yescrypt ($y$), SHA-512 ($6$) or SHA-256 ($5$) crypt hash");
	}
	if (!ok)
		return imgp_fail(EINVAL, "not a %s crypt hash: its rounds, salt or hash part "
				 "are not as crypt(5) has them",
				 name);
	/*
	 * libxcrypt has the last word on the method: enabled (SHA-256 is
	 * "legacy" in Debian's build, still checked at login). Hashing with
	 * the hash as the setting is not tried: a hostile cost takes hours.
	 */
	cs = crypt_checksalt(hash);
	if (cs != CRYPT_SALT_OK && cs != CRYPT_SALT_METHOD_LEGACY)
		return imgp_fail(EINVAL, "a %s hash that this libcrypt does not take", name);
	return 0;
}
