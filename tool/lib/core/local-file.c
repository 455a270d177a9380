// SPDX-License-Identifier: MIT
/* A whole local file read into memory, bounded: recipes' files, customize's sources. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imgpatch.h"
#include "core/core.h"
#include "core/io.h"

int imgp_read_local_(const char *path, size_t max, bool nofollow,
		    struct imgp_buf *out)
{
	struct stat st;
	int fd, err, rc = 0;

	out->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		err = errno;
		return imgp_fail(err, "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		rc = imgp_fail(err, "%s: %s", path, strerror(err));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = imgp_fail(EINVAL, "%s: not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		rc = imgp_fail(EFBIG, "%s: larger than %zu bytes", path, max);
		goto out;
	}
	if (imgp_buf_reserve_(out, (size_t)st.st_size + 1)) {
		rc = imgp_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		uint8_t chunk[8192];
		ssize_t n = imgp_read_all_(fd, chunk, sizeof(chunk), -1);

		if (n < 0) {
			err = (int)-n;
			rc = imgp_fail(err, "%s: read error: %s", path, strerror(err));
			break;
		}
		if (n == 0)
			break;
		/* The file may grow while we read it: the bound still holds. */
		if (out->len + (size_t)n > max) {
			rc = imgp_fail(EFBIG, "%s: larger than %zu bytes", path, max);
			break;
		}
		if (imgp_buf_append(out, chunk, (size_t)n)) {
			rc = imgp_fail(ENOMEM, "out of memory");
			break;
		}
	}
	if (!rc && imgp_buf_append(out, "", 0))
		rc = imgp_fail(ENOMEM, "out of memory");
out:
	close(fd);
	return rc;
}
