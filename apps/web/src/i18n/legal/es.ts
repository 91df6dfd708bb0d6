import type { NamespaceCatalogue } from '../resources';

/** Las páginas legales en español (las mismas claves que legal/en.ts). */
const legal: NamespaceCatalogue<'legal'> = {
  effective: 'Fecha de entrada en vigor: {{date}}',
  contactTitle: 'Contacto',
  contact: '¿Preguntas sobre esta página? Escríbenos a <0>{{email}}</0>.',
  privacy: {
    title: 'Política de privacidad',
    intro:
      '{{product}} muestra carreras en directo: dónde está cada corredor en el recorrido mientras se disputa una carrera. Esta política explica qué guardamos, por qué y durante cuánto tiempo.',
    collectTitle: 'Qué recogemos',
    directors:
      '<0>Directores de carrera y administradores:</0> el identificador de la cuenta, el nombre y la dirección de correo que da el proveedor de inicio de sesión, y las carreras, recorridos y corredores que introduces.',
    runners:
      '<0>Corredores:</0> el nombre, el dorsal, el género y la edad que registra un director de carrera, y las posiciones que envía el localizador que lleva el corredor durante una carrera.',
    visitors:
      '<0>Visitantes:</0> nada más allá de los datos técnicos que recibe cualquier servidor web (dirección, navegador, hora de la petición), guardados en registros de corta duración para hacer funcionar el servicio de forma segura.',
    useTitle: 'Cómo lo usamos',
    use: 'Las posiciones solo se usan para mostrar el mapa y la clasificación de una carrera. Los datos de la carrera, el recorrido y los corredores se muestran públicamente cuando un administrador aprueba la carrera. No vendemos datos ni los usamos para publicidad.',
    runnersTitle: 'Privacidad de los corredores',
    runnersText:
      'Un director de carrera puede mostrar las posiciones y la clasificación al público con unos minutos de retraso (el director y el centro de control las ven en directo), mantener privados los trazados de los corredores y permitir que un corredor oculte su posición en directo: ese corredor sigue en la clasificación según su progreso, sin punto en el mapa público.',
    keepTitle: 'Cuánto tiempo lo guardamos',
    keep: 'Las posiciones se guardan durante el periodo que fija el director de carrera, contado desde el final de la carrera, y después se borran; los resultados (la clasificación final y los parciales) se mantienen. Sin periodo, las posiciones se guardan mientras el director conserve la carrera. Borrar una carrera borra sus corredores, su recorrido y sus posiciones. Los datos de inicio de sesión se guardan en el almacenamiento de sesión de tu navegador y se borran al cerrar la pestaña o cerrar sesión.',
    race: 'Carrera',
    delay: 'Retraso público',
    trails: 'Trazados',
    positions: 'Posiciones',
    live: 'en directo',
    private: 'privados',
    public: 'públicos',
    keptUntilDeleted: 'se guardan hasta que se borre la carrera',
    deletedAfter_one: 'se borran {{count}} día después del final de la carrera',
    deletedAfter_other: 'se borran {{count}} días después del final de la carrera',
    rightsTitle: 'Tus derechos',
    rights:
      'Puedes pedirnos una copia de los datos sobre ti, que los corrijamos o que los borremos. Los corredores pueden dirigirse a su director de carrera o directamente a nosotros.',
  },
  terms: {
    title: 'Condiciones del servicio',
    intro:
      'Estas condiciones se aplican a todas las personas que usan {{product}}: visitantes que siguen una carrera, directores de carrera que gestionan una y administradores que hacen funcionar el servicio.',
    usingTitle: 'Uso del servicio',
    visitors:
      'Los visitantes pueden consultar gratis las carreras públicas, sus recorridos y sus corredores.',
    directors:
      'Los directores de carrera son responsables de las carreras que crean y deben contar con el consentimiento de sus corredores antes de inscribirlos y entregarles un localizador.',
    admins: 'Los administradores pueden aprobar, rechazar o retirar carreras y gestionar los localizadores.',
    bestEffortTitle: 'El seguimiento se ofrece según disponibilidad',
    bestEffort:
      'Las posiciones en directo dependen de los satélites, la cobertura de radio y las baterías. Las actualizaciones suelen llegar cada 2,5 minutos, pero pueden retrasarse o faltar. Nunca confíes en {{product}} para la seguridad de un corredor: no es un servicio de emergencias.',
    useTitle: 'Uso aceptable',
    use: 'No subas contenido que no tengas derecho a compartir, no intentes romper ni sobrecargar el servicio y no lo uses para seguir a una persona sin su consentimiento. Podemos suspender las cuentas que lo hagan.',
    liabilityTitle: 'Responsabilidad',
    liability:
      'El servicio se ofrece tal cual. En la medida en que la ley lo permita, no somos responsables de las pérdidas causadas por datos de seguimiento ausentes o erróneos.',
    changesTitle: 'Cambios',
    changes:
      'Podemos actualizar estas condiciones; la fecha de entrada en vigor de arriba muestra siempre la versión vigente.',
  },
};

export default legal;
