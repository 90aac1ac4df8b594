// Pango text layout on Cairo surfaces (libpangocairo), declared here rather than by
// including <pango/pangocairo.h>: that header needs GLib's include paths, and the only
// way SwiftPM gets them (pkg-config pangocairo) brings `-pthread`, a flag SwiftPM
// prohibits and warns about. These are the few stable-ABI entry points Lamina uses
// (Pango ≥ 1.44); enums are passed as their C `int` values below.
#include <stdint.h>

typedef struct _cairo lamina_cairo_t;            // cairo_t
typedef struct _cairo_font_options lamina_cairo_font_options_t;   // cairo_font_options_t
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoContext PangoContext;
typedef struct _PangoFontDescription PangoFontDescription;

PangoLayout *pango_cairo_create_layout(lamina_cairo_t *cr);
void pango_cairo_show_layout(lamina_cairo_t *cr, PangoLayout *layout);

PangoFontDescription *pango_font_description_new(void);
void pango_font_description_set_family(PangoFontDescription *desc, const char *family);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
void pango_font_description_set_weight(PangoFontDescription *desc, int weight);   // PangoWeight: 100…1000
void pango_font_description_set_style(PangoFontDescription *desc, int style);     // PangoStyle
void pango_font_description_free(PangoFontDescription *desc);

void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_set_width(PangoLayout *layout, int width);                       // Pango units; -1: no wrapping
void pango_layout_set_wrap(PangoLayout *layout, int wrap);                         // PangoWrapMode
void pango_layout_set_alignment(PangoLayout *layout, int alignment);               // PangoAlignment
void pango_layout_set_justify(PangoLayout *layout, int justify);                   // gboolean
void pango_layout_set_ellipsize(PangoLayout *layout, int ellipsize);               // PangoEllipsizeMode: 0 none, 1 start, 2 middle, 3 end
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_get_size(PangoLayout *layout, int *width, int *height);         // Pango units

// Layout independent of the device scale: unhinted metrics, unrounded glyph positions, so
// text measured at one scale fits the same box drawn at another.
PangoContext *pango_layout_get_context(PangoLayout *layout);
void pango_cairo_context_set_font_options(PangoContext *context, const lamina_cairo_font_options_t *options);
void pango_context_set_round_glyph_positions(PangoContext *context, int round_positions);  // gboolean, Pango ≥ 1.44
void pango_layout_context_changed(PangoLayout *layout);

void g_object_unref(void *object);

enum {
    LAMINA_PANGO_SCALE = 1024,                // PANGO_SCALE: Pango units per point
    LAMINA_PANGO_STYLE_NORMAL = 0,
    LAMINA_PANGO_STYLE_ITALIC = 2,
    LAMINA_PANGO_WRAP_WORD_CHAR = 2,
    LAMINA_PANGO_ALIGN_LEFT = 0,
    LAMINA_PANGO_ALIGN_CENTER = 1,
    LAMINA_PANGO_ALIGN_RIGHT = 2,
};
