// Checks the density image written by examples/genred_demo (CTest's genred_demo_image):
//
//   genred_demo_image_check IMAGE WIDTH HEIGHT X Y TOLERANCE
//
// passes when IMAGE is a WIDTH x HEIGHT PNG whose brightest pixels (highest luminance: the
// demo's colour map brightens monotonically with the density) are few, centred within
// TOLERANCE of (X * WIDTH, Y * HEIGHT) in both directions (as fractions of each side), and
// stand out from a darker background. The first condition rejects a flat image, whose
// "brightest pixels" would be all of them, centred on the image.
#include <png.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: genred_demo_image_check IMAGE WIDTH HEIGHT X Y TOLERANCE\n");
    return 2;
  }
  const unsigned width = std::atoi(argv[2]), height = std::atoi(argv[3]);
  const double expect_x = std::atof(argv[4]), expect_y = std::atof(argv[5]);
  const double tolerance = std::atof(argv[6]);

  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, argv[1])) {
    std::fprintf(stderr, "FAIL: cannot read %s: %s\n", argv[1], image.message);
    return 1;
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> rgb(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr)) {
    std::fprintf(stderr, "FAIL: cannot decode %s: %s\n", argv[1], image.message);
    return 1;
  }
  std::printf("%s: %u x %u\n", argv[1], image.width, image.height);
  if (image.width != width || image.height != height) {
    std::printf("FAIL: expected %u x %u\n", width, height);
    return 1;
  }

  // Rec. 709 luminance weights, in integers so that equal colours compare equal.
  std::vector<long> luminance(static_cast<std::size_t>(width) * height);
  for (std::size_t p = 0; p < luminance.size(); ++p)
    luminance[p] = 2126L * rgb[3 * p] + 7152L * rgb[3 * p + 1] + 722L * rgb[3 * p + 2];
  long lo = luminance[0], hi = luminance[0];
  for (long l : luminance) {
    lo = std::min(lo, l);
    hi = std::max(hi, l);
  }
  double sum_x = 0, sum_y = 0;
  std::size_t count = 0;
  for (unsigned r = 0; r < height; ++r)
    for (unsigned c = 0; c < width; ++c)
      if (luminance[static_cast<std::size_t>(r) * width + c] == hi) {
        sum_x += c + 0.5;
        sum_y += r + 0.5;
        ++count;
      }
  const double x = sum_x / count / width, y = sum_y / count / height;
  std::printf(
      "brightest: %zu pixels centred at (%.3f, %.3f) of the width and height, expected "
      "(%.3f, %.3f) +- %.3f; luminance from %.1f to %.1f\n",
      count, x, y, expect_x, expect_y, tolerance, lo / 1e4, hi / 1e4);

  bool ok = true;
  // A peak, not a plateau: at most 2% of the image at the top colour.
  if (count > luminance.size() / 50) {
    std::printf("FAIL: the brightest colour covers %zu of %zu pixels\n", count, luminance.size());
    ok = false;
  }
  if (hi < 4 * lo) {
    std::printf("FAIL: the brightest pixel is not 4 times brighter than the darkest\n");
    ok = false;
  }
  if (std::fabs(x - expect_x) > tolerance || std::fabs(y - expect_y) > tolerance) {
    std::printf("FAIL: the brightest pixels are not where the density's maximum should be\n");
    ok = false;
  }
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
